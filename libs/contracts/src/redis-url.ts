/**
 * REDIS_URL forms: `redis://` and `rediss://` name one server; `redis+sentinel://` and `rediss+sentinel://` name the
 * Sentinels of a replicated Redis and the master they watch, so clients follow a failover:
 * `redis+sentinel://[user[:password]@]host:port[,host:port…]/<master name>[/<db>]`. The credentials (percent-encoded,
 * as in any URL) are the Redis servers'; `rediss+sentinel://` talks TLS to the Sentinels and the servers.
 */

/** Connection options of one Redis server or of a Sentinel-watched master, in ioredis's terms. */
export interface RedisConnectionOptions {
  host?: string;
  port?: number;
  sentinels?: { host: string; port: number }[];
  /** The master's name, as the Sentinels know it. */
  name?: string;
  username?: string;
  password?: string;
  db?: number;
  tls?: Record<string, never>;
  sentinelTLS?: Record<string, never>;
  enableTLSForSentinelMode?: boolean;
}

const SENTINEL_URL = /^(rediss?)\+sentinel:\/\/(?:([^@/]*)@)?([^/@]+)\/([^/]+)(?:\/(\d+))?\/?$/;
const HOST_PORT = /^([^\s:,[\]]+|\[[0-9a-fA-F:.]+\]):(\d{1,5})$/;

/** True for a `redis+sentinel://` or `rediss+sentinel://` URL (well-formed or not). */
export function isSentinelUrl(url: string): boolean {
  return /^rediss?\+sentinel:/.test(url);
}

function credentials(userinfo: string | undefined): Pick<RedisConnectionOptions, 'username' | 'password'> {
  if (userinfo === undefined || userinfo === '') return {};
  const colon = userinfo.indexOf(':');
  const username = decodeURIComponent(colon < 0 ? userinfo : userinfo.slice(0, colon));
  const password = colon < 0 ? '' : decodeURIComponent(userinfo.slice(colon + 1));
  return { ...(username ? { username } : {}), ...(password ? { password } : {}) };
}

/** Options of a Sentinel URL; throws naming what is wrong with it. */
export function sentinelConnectionOptions(url: string): RedisConnectionOptions {
  const match = SENTINEL_URL.exec(url);
  if (!match) throw new Error('expected redis+sentinel://[user:password@]host:port[,host:port…]/<master name>[/<db>]');
  const [, scheme, userinfo, hosts = '', name = '', db] = match;
  const sentinels = hosts.split(',').map((entry) => {
    const hostPort = HOST_PORT.exec(entry.trim());
    const port = Number(hostPort?.[2]);
    if (!hostPort || port < 1 || port > 65535) throw new Error(`expected host:port for every Sentinel, got "${entry}"`);
    return { host: hostPort[1]!.replace(/^\[|\]$/g, ''), port };
  });
  const tls = scheme === 'rediss' ? { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true } : {};
  return {
    sentinels,
    name: decodeURIComponent(name),
    ...credentials(userinfo),
    ...(db !== undefined ? { db: Number(db) } : {}),
    ...tls,
  };
}

/** Options of any REDIS_URL: one server (host, port, credentials, database) or a Sentinel-watched master. */
export function redisConnectionOptions(url: string): RedisConnectionOptions {
  if (isSentinelUrl(url)) return sentinelConnectionOptions(url);
  const parsed = new URL(url);
  const db = parsed.pathname.replace(/^\//, '');
  return {
    host: parsed.hostname,
    port: parsed.port === '' ? 6379 : Number(parsed.port),
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(db !== '' ? { db: Number(db) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}
