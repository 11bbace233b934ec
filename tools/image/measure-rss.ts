/**
 * Idle resident memory of each service, started from the image's tree (`node dist/apps/<app>/main.js`, the image's
 * ENV including its NODE_OPTIONS) and the development way (`node -r @swc-node/register apps/<app>/src/main.ts`).
 * Each platform runs alone: the five services start one after another, each once the previous answers /readyz; when
 * all are ready the script waits RSS_IDLE_SECONDS (default 10) and reads `ps -o rss=` of each process. Prints the
 * README's table. Needs a migrated database in DATABASE_URL (e.g. `npm run -s runplane -- migrate` first) and
 * Redis; it runs `npm run build`'s output, so build first. RSS_NODE_OPTIONS replaces the image's NODE_OPTIONS
 * (e.g. to compare V8 settings) and RSS_NODE_FLAGS the flags of the image's CMD before the script (`RSS_NODE_FLAGS=`
 * runs `node dist/apps/<app>/main.js` without any); RSS_ENV adds or replaces image ENV
 * (`RSS_ENV="MALLOC_ARENA_MAX=4 UV_THREADPOOL_SIZE=2"`, an empty value removes the variable); RSS_ONLY=dist skips
 * the development way. RSS_DETAIL=1 also prints, per build process, /proc/<pid>/smaps_rollup split into anonymous
 * (heaps, malloc, WebAssembly) and file-backed pages (the node binary and shared libraries).
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/runplane node -r @swc-node/register tools/image/measure-rss.ts
 */
import { createRedis } from '@runplane/queue';
import { cleanupRedisPrefix, getFreePorts, pollUntil } from '@runplane/testing';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { assembleImage } from './assemble';
import {
  isReady,
  type PlatformSettings,
  REPO_ROOT,
  type RunningService,
  SERVICES,
  type ServiceName,
  startService,
  stopService,
} from './launch';

const IDLE_SECONDS = Number(process.env.RSS_IDLE_SECONDS ?? '10');

function rssMb(pid: number): number {
  return Math.round(Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024);
}

/** Anonymous and file-backed resident MB of a process, from the kernel's summary of its mappings. */
function rssSplit(pid: number): string {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? 0);
  const anonymous = kb('Anonymous');
  return `anonymous ${Math.round(anonymous / 1024)} MB, file-backed ${Math.round((kb('Rss') - anonymous) / 1024)} MB`;
}

/** Applies RSS_ENV's `NAME=value` words to the image's ENV; `NAME=` removes NAME. */
function applyExtraEnv(env: Record<string, string>, extra: string): void {
  for (const word of extra.split(/\s+/).filter(Boolean)) {
    const eq = word.indexOf('=');
    if (eq <= 0) throw new Error(`RSS_ENV: "${word}" is not NAME=value`);
    const [name, value] = [word.slice(0, eq), word.slice(eq + 1)];
    if (value === '') delete env[name];
    else env[name] = value;
  }
}

async function measure(
  base: Omit<PlatformSettings, 'ports' | 'mode'>,
  mode: PlatformSettings['mode'],
): Promise<Record<ServiceName, number>> {
  const ports = await getFreePorts(SERVICES.length);
  const settings: PlatformSettings = {
    ...base,
    mode,
    ports: Object.fromEntries(SERVICES.map((name, i) => [name, ports[i] ?? 0])) as Record<ServiceName, number>,
  };
  const running: RunningService[] = [];
  try {
    for (const name of SERVICES) {
      const service = startService(name, settings);
      running.push(service);
      await pollUntil(
        async () => {
          if (service.child.exitCode !== null) throw new Error(`${name} exited:\n${service.output()}`);
          return (await isReady(settings.ports[name])) || undefined;
        },
        { timeoutMs: 180_000, intervalMs: 250, description: `${name} to answer /readyz` },
      );
    }
    await sleep(IDLE_SECONDS * 1000);
    if (process.env.RSS_DETAIL === '1') {
      for (const service of running)
        process.stderr.write(`${mode} ${service.name}: ${rssSplit(service.child.pid ?? 0)}\n`);
    }
    return Object.fromEntries(running.map((service) => [service.name, rssMb(service.child.pid ?? 0)])) as Record<
      ServiceName,
      number
    >;
  } finally {
    await Promise.all(running.map((service) => stopService(service)));
  }
}

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/runplane';
  const image = await assembleImage();
  if (process.env.RSS_NODE_OPTIONS !== undefined) image.env.NODE_OPTIONS = process.env.RSS_NODE_OPTIONS;
  const nodeFlags =
    process.env.RSS_NODE_FLAGS === undefined
      ? image.nodeFlags
      : process.env.RSS_NODE_FLAGS.split(/\s+/).filter(Boolean);
  applyExtraEnv(image.env, process.env.RSS_ENV ?? '');
  const schedulerStateDir = mkdtempSync(join(tmpdir(), 'runplane-rss-'));
  const base = {
    appDir: image.appDir,
    imageEnv: image.env,
    nodeFlags,
    databaseUrl,
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    redisPrefix: `rss-${randomBytes(4).toString('hex')}`,
    encryptionKey: randomBytes(32).toString('hex'),
    schedulerStateDir,
    workerDir: REPO_ROOT,
  };
  try {
    // The development way gets no image ENV: it runs as `npm start` runs the apps.
    const dist = await measure(base, 'dist');
    const source =
      process.env.RSS_ONLY === 'dist' ? dist : await measure({ ...base, imageEnv: {}, nodeFlags: [] }, 'source');
    const total = (rss: Record<ServiceName, number>): number => SERVICES.reduce((sum, name) => sum + rss[name], 0);
    const lines = ['| Service | today (`-r @swc-node/register`) | build (`node dist/…`) |', '|---|---:|---:|'];
    for (const name of SERVICES) lines.push(`| ${name} | ${source[name]} MB | ${dist[name]} MB |`);
    lines.push(`| **all five** | **${total(source)} MB** | **${total(dist)} MB** |`);
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    rmSync(schedulerStateDir, { recursive: true, force: true });
    const redis = createRedis(base.redisUrl);
    await cleanupRedisPrefix(redis, base.redisPrefix);
    await redis.quit();
  }
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
