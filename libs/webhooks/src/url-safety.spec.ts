import {
  parseAllowedHosts,
  RefusedUrlError,
  refusedAddressReason,
  UnresolvedHostError,
  WebhookUrlGuard,
  type HostResolver,
} from './url-safety';

/** A resolver answering from a table, counting lookups. */
function tableResolver(table: Record<string, string[]>): HostResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

describe('refusedAddressReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:7f00:1', 'loopback'],
  ])('refuses %s (%s)', (address, range) => {
    expect(refusedAddressReason(address)).toBe(`${address} is in a non-public range (${range})`);
  });

  it.each(['169.254.169.254', '100.100.100.200', 'fd00:ec2::254', '::ffff:169.254.169.254'])(
    'names the cloud metadata address %s',
    (address) => {
      expect(refusedAddressReason(address)).toBe(`${address} is a cloud metadata address`);
    },
  );

  it('refuses IPv4-compatible IPv6 addresses', () => {
    expect(refusedAddressReason('::7f00:1')).toBe('::7f00:1 is an IPv4-compatible IPv6 address');
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])(
    'allows the public address %s',
    (address) => {
      expect(refusedAddressReason(address)).toBeNull();
    },
  );
});

describe('parseAllowedHosts', () => {
  it('reads hosts, host:port, bracketed IPv6 with or without a port and bare IPv6', () => {
    expect(
      parseAllowedHosts(['Hooks.Internal', 'localhost:8080', '[::1]:9000', '[::1]', '::1', ' 10.0.0.5:80 ']),
    ).toEqual([
      { host: 'hooks.internal' },
      { host: 'localhost', port: '8080' },
      { host: '::1', port: '9000' },
      { host: '::1' },
      { host: '::1' },
      { host: '10.0.0.5', port: '80' },
    ]);
  });

  it('rejects an entry that is not a host', () => {
    expect(() => parseAllowedHosts(['http://x/y'])).toThrow(/not a host or host:port/);
  });
});

describe('WebhookUrlGuard', () => {
  const resolver = tableResolver({
    'hooks.example.com': ['93.184.215.14'],
    'dual.example.com': ['2606:4700::1111', '93.184.215.15'],
    'rebind.example.com': ['93.184.215.16', '127.0.0.1'],
    localhost: ['127.0.0.1', '::1'],
    'metadata.google.internal': ['169.254.169.254'],
    'internal.example.com': ['10.0.0.7'],
  });
  const guard = new WebhookUrlGuard([], resolver);

  async function refusal(url: string, on = guard): Promise<string> {
    const error = await on.check(url).then(
      () => new Error('not refused'),
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(RefusedUrlError);
    return error.message;
  }

  it('pins a public host to the address it resolved to, resolving once', async () => {
    resolver.calls.length = 0;
    const destination = await guard.check('https://hooks.example.com/runpod?x=1');
    expect(destination).toMatchObject({ address: '93.184.215.14', family: 4 });
    expect(destination.url.href).toBe('https://hooks.example.com/runpod?x=1');
    expect(resolver.calls).toEqual(['hooks.example.com']);
    expect(await guard.check('http://dual.example.com/')).toMatchObject({ address: '2606:4700::1111', family: 6 });
  });

  it('does not resolve IP literals, and checks them', async () => {
    resolver.calls.length = 0;
    expect(await guard.check('http://93.184.215.14:8080/h')).toMatchObject({ address: '93.184.215.14', family: 4 });
    expect(await refusal('http://127.0.0.1:8080/h')).toBe('127.0.0.1 is in a non-public range (loopback)');
    expect(await refusal('http://10.0.0.1/h')).toBe('10.0.0.1 is in a non-public range (private)');
    expect(await refusal('http://169.254.169.254/latest/meta-data')).toBe(
      '169.254.169.254 is a cloud metadata address',
    );
    expect(await refusal('http://[::1]:8080/h')).toBe('::1 is in a non-public range (loopback)');
    expect(await refusal('http://[::ffff:127.0.0.1]/h')).toMatch(/non-public range \(loopback\)/);
    expect(await refusal('http://100.64.1.1/h')).toMatch(/carrierGradeNat/);
    expect(await refusal('http://0.0.0.0/h')).toMatch(/unspecified/);
    expect(await refusal('http://224.0.0.251/h')).toMatch(/multicast/);
    expect(resolver.calls).toEqual([]);
  });

  it('sees through the other spellings of an IPv4 address that URLs accept', async () => {
    expect(await refusal('http://2130706433/h')).toMatch(/^127\.0\.0\.1 .*loopback/);
    expect(await refusal('http://0x7f.1/h')).toMatch(/^127\.0\.0\.1 .*loopback/);
    expect(await refusal('http://017700000001/h')).toMatch(/^127\.0\.0\.1 .*loopback/);
  });

  it('refuses host names that resolve to a refused address, naming the host', async () => {
    expect(await refusal('http://localhost:3000/h')).toBe(
      'localhost resolves to 127.0.0.1 is in a non-public range (loopback)',
    );
    expect(await refusal('http://metadata.google.internal/computeMetadata/v1/')).toBe(
      'metadata.google.internal resolves to 169.254.169.254 is a cloud metadata address',
    );
    // One bad address among good ones is enough: the connection could land on it.
    expect(await refusal('http://rebind.example.com/')).toMatch(/resolves to 127\.0\.0\.1/);
  });

  it('calls only http and https', async () => {
    expect(await refusal('ftp://hooks.example.com/x')).toBe('only http and https URLs are called, not ftp');
    expect(await refusal('file:///etc/passwd')).toBe('only http and https URLs are called, not file');
    expect(await refusal('not a url')).toBe('not a valid URL');
  });

  it('reports an unresolvable host as a retryable failure, not a refusal', async () => {
    await expect(guard.check('http://nowhere.example.com/')).rejects.toThrow(UnresolvedHostError);
    await expect(guard.check('http://nowhere.example.com/')).rejects.toThrow(
      /could not resolve nowhere\.example\.com: ENOTFOUND/,
    );
  });

  it('lets the operator allow hosts, by name or name and port (default ports included)', async () => {
    const allowing = new WebhookUrlGuard(
      ['127.0.0.1:8080', 'internal.example.com', '[::1]:9000', 'localhost:80'],
      resolver,
    );
    expect(await allowing.check('http://127.0.0.1:8080/h')).toMatchObject({ address: '127.0.0.1' });
    expect(await allowing.check('https://internal.example.com/h')).toMatchObject({ address: '10.0.0.7' });
    expect(await allowing.check('http://[::1]:9000/h')).toMatchObject({ address: '::1', family: 6 });
    expect(await allowing.check('http://localhost/h')).toMatchObject({ address: '127.0.0.1' });
    expect(await refusal('http://127.0.0.1:8081/h', allowing)).toMatch(/loopback/);
    expect(await refusal('http://localhost:8080/h', allowing)).toMatch(/loopback/);
    expect(await refusal('https://localhost/h', allowing)).toMatch(/loopback/);
  });
});
