import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** A webhook URL the dispatcher will not call (scheme, or an address in a refused range). Never retried. */
export class RefusedUrlError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RefusedUrlError';
  }
}

/** The host name did not resolve (possibly for a moment): a failed attempt that is retried. */
export class UnresolvedHostError extends Error {
  constructor(hostname: string, cause: unknown) {
    super(`could not resolve ${hostname}: ${(cause as { code?: string }).code ?? (cause as Error).message}`);
    this.name = 'UnresolvedHostError';
  }
}

/** Where a checked webhook goes: the URL and the one address, checked, that the request must connect to. */
export interface Destination {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses (dns.lookup with `all`; tests inject their own). */
export type HostResolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: HostResolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

interface AllowedHost {
  host: string;
  port?: string;
}

// Well-known cloud metadata services. All of them sit in ranges refused anyway; naming them keeps the reason clear.
const METADATA_ADDRESSES = new Set([
  '169.254.169.254',
  '169.254.170.2',
  '100.100.100.200',
  '192.0.0.192',
  'fd00:ec2::254',
]);
// IPv4-compatible IPv6 (::a.b.c.d, deprecated) is not a special range in ipaddr.js but may reach IPv4 hosts.
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

function normalizeHost(host: string): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return ipaddr.IPv6.isValid(bare) ? ipaddr.IPv6.parse(bare).toRFC5952String() : bare.toLowerCase();
}

/** Parses `WEBHOOK_ALLOWED_HOSTS` entries: `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 address. */
export function parseAllowedHosts(entries: readonly string[]): AllowedHost[] {
  return entries.map((raw) => {
    const entry = raw.trim();
    const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
    if (bracketed) return { host: normalizeHost(bracketed[1]!), ...(bracketed[2] ? { port: bracketed[2] } : {}) };
    const withPort = /^([^:]+):(\d{1,5})$/.exec(entry);
    if (withPort) return { host: normalizeHost(withPort[1]!), port: withPort[2]! };
    if (!/^[^\s/?#@]+$/.test(entry)) throw new Error(`"${raw}" is not a host or host:port`);
    return { host: normalizeHost(entry) };
  });
}

function defaultPort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/** Why an address may not be called, or null when it is a public unicast address. */
export function refusedAddressReason(address: string): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  const text = ip.toString();
  if (METADATA_ADDRESSES.has(text)) return `${address} is a cloud metadata address`;
  if (ip.kind() === 'ipv6' && text !== '::' && text !== '::1' && ip.match(IPV4_COMPATIBLE)) {
    return `${address} is an IPv4-compatible IPv6 address`;
  }
  const range = ip.range();
  return range === 'unicast' ? null : `${address} is in a non-public range (${range})`;
}

/**
 * Decides whether a webhook URL may be called and pins the address to call. Only http and https; the host is
 * resolved once, here, and every address it has must be public unicast (no loopback, private, link-local, CGNAT,
 * multicast, unspecified, reserved or metadata address, IPv4-mapped IPv6 included) unless the operator allowed the
 * host. The caller connects to the returned address, so a second DNS answer can never point the request elsewhere.
 */
export class WebhookUrlGuard {
  private readonly allowed: AllowedHost[];

  constructor(
    allowedHosts: readonly string[] = [],
    private readonly resolve: HostResolver = systemResolver,
  ) {
    this.allowed = parseAllowedHosts(allowedHosts);
  }

  /** The destination to connect to; RefusedUrlError or UnresolvedHostError otherwise. */
  async check(rawUrl: string): Promise<Destination> {
    const url = this.parse(rawUrl);
    const host = normalizeHost(url.hostname);
    const allowed = this.isAllowed(host, defaultPort(url));
    const addresses = ipaddr.isValid(host)
      ? [{ address: host, family: host.includes(':') ? 6 : 4 }]
      : await this.lookup(host);
    if (!allowed) {
      for (const { address } of addresses) {
        const reason = refusedAddressReason(address);
        if (reason) throw new RefusedUrlError(host === address ? reason : `${host} resolves to ${reason}`);
      }
    }
    const first = addresses[0]!;
    return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
  }

  private parse(rawUrl: string): URL {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      throw new RefusedUrlError('not a valid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new RefusedUrlError(`only http and https URLs are called, not ${url.protocol.slice(0, -1)}`);
    }
    return url;
  }

  private isAllowed(host: string, port: string): boolean {
    return this.allowed.some((entry) => entry.host === host && (entry.port === undefined || entry.port === port));
  }

  private async lookup(host: string): Promise<{ address: string; family: number }[]> {
    let addresses: { address: string; family: number }[];
    try {
      addresses = await this.resolve(host);
    } catch (error) {
      throw new UnresolvedHostError(host, error);
    }
    if (addresses.length === 0) throw new UnresolvedHostError(host, new Error('no addresses'));
    return addresses;
  }
}
