import { endpointIdOfHost } from './lb-host';

describe('endpointIdOfHost', () => {
  it.each([
    ['abc123.lb.example.com', 'abc123'],
    ['ABC123.LB.Example.com:8443', 'abc123'],
    ['abc123.lb.example.com.', 'abc123'],
  ])('reads the endpoint of %s', (host, endpointId) => {
    expect(endpointIdOfHost(host, 'lb.example.com')).toBe(endpointId);
  });

  it.each([
    undefined,
    'lb.example.com',
    'api.example.com',
    'a.b.lb.example.com',
    'a_b.lb.example.com',
    'xlb.example.com',
  ])('claims no endpoint for %s', (host) => {
    expect(endpointIdOfHost(host, 'lb.example.com')).toBeNull();
  });
});
