import { spawn } from 'node:child_process';
import { findFreePort, redisAnswers, waitFor } from './net';
import {
  childExited,
  externalService,
  findExecutable,
  type LogFn,
  type ResolvedService,
  ServiceUnavailableError,
  terminateChild,
} from './services';

/** Where to look for Redis when REDIS_URL is not set. */
export interface RedisResolveOptions {
  redisUrl: string | undefined;
  localHost: string;
  localPort: number;
  /** PATH used to find `redis-server`. */
  searchPath: string;
  log: LogFn;
}

/** The message shown when no Redis can be found or started. */
export function missingRedisMessage(host: string, port: number): string {
  return [
    `Redis is not answering at ${host}:${port} and redis-server is not installed.`,
    'Install it and run `npm start` again:',
    '  Debian/Ubuntu: sudo apt-get install redis-server',
    '  macOS:         brew install redis',
    'or point the platform at an existing Redis with REDIS_URL=redis://host:port.',
  ].join('\n');
}

/** REDIS_URL when set; else a Redis answering on the default port; else a private redis-server. */
export async function resolveRedis(options: RedisResolveOptions): Promise<ResolvedService> {
  if (options.redisUrl !== undefined) return externalService(options.redisUrl, 'env');
  if (await redisAnswers(options.localHost, options.localPort)) {
    options.log(`using Redis at ${options.localHost}:${options.localPort}`);
    return externalService(`redis://${options.localHost}:${options.localPort}`, 'local');
  }
  const binary = findExecutable('redis-server', options.searchPath);
  if (binary === undefined) {
    throw new ServiceUnavailableError(missingRedisMessage(options.localHost, options.localPort));
  }
  return spawnRedis(binary, options.log);
}

/** Starts redis-server on a free port with nothing kept on disk. */
async function spawnRedis(binary: string, log: LogFn): Promise<ResolvedService> {
  const port = await findFreePort();
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--loglevel',
    'warning',
  ];
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  let exited = false;
  void childExited(child).then(() => (exited = true));
  const up = await waitFor(async () => exited || (await redisAnswers('127.0.0.1', port)), 10_000);
  if (!up || exited) {
    await terminateChild(child, 2000);
    throw new ServiceUnavailableError(`redis-server (${binary}) did not start on port ${port}: ${stderr.trim()}`);
  }
  log(`started redis-server on 127.0.0.1:${port} (pid ${child.pid})`);
  return {
    url: `redis://127.0.0.1:${port}`,
    source: 'spawned',
    pid: child.pid,
    stop: () => terminateChild(child, 5000),
  };
}
