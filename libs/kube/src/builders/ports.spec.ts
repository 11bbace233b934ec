import { parsePorts } from './ports';

describe('parsePorts', () => {
  it('parses RunPod port specs into port, protocol, transport and a unique name', () => {
    expect(parsePorts(['8888/http', '22/tcp', '53/udp'])).toEqual([
      { port: 8888, protocol: 'http', transport: 'TCP', name: 'http-8888' },
      { port: 22, protocol: 'tcp', transport: 'TCP', name: 'tcp-22' },
      { port: 53, protocol: 'udp', transport: 'UDP', name: 'udp-53' },
    ]);
  });

  it('accepts the comma string, skips blanks and duplicates', () => {
    expect(parsePorts('8888/http, 22/tcp,,22/tcp').map((p) => p.name)).toEqual(['http-8888', 'tcp-22']);
    expect(parsePorts(undefined)).toEqual([]);
  });

  it('rejects malformed specs', () => {
    expect(() => parsePorts(['22'])).toThrow('Invalid port spec "22"');
    expect(() => parsePorts(['70000/tcp'])).toThrow(RangeError);
    expect(() => parsePorts(['22/sctp'])).toThrow(RangeError);
  });
});
