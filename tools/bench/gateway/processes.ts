// The processes of the gateway read-path suite: the gateway itself (apps/gateway/src/main.ts, as deployed) and the
// bare Fastify + pg baseline, each on its own port so the load generator does not share their event loops.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { getFreePort, pollUntil, spawnProcessGroup, stopProcessGroup } from '@runplane/testing';

const REPO_ROOT = join(__dirname, '..', '..', '..');

/**
 * The environment a benchmarked gateway runs with: its database and Redis prefix, a fresh encryption key, quiet logs,
 * and the v2 quotas off (they would refuse a benchmark's load; their cost is one Redis call per request either way).
 */
export function gatewayBenchEnv(databaseUrl: string, redisPrefix: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    REDIS_PREFIX: redisPrefix,
    RUNPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'error',
    V2_RATE_LIMIT_PER_MINUTE: '0',
    V2_RATE_LIMIT_PER_HOUR: '0',
    V2_RATE_LIMIT_PER_DAY: '0',
  };
}

/** A server process under load. */
export interface ServerProcess {
  base: string;
  pid: number;
  close(): Promise<void>;
}

/**
 * Starts `script` (relative to the repository) with `env` on a free port and resolves once /healthz answers. With
 * `cpuProfileDir` the process writes a V8 CPU profile there when it exits.
 */
export async function startServer(
  script: string,
  env: Record<string, string>,
  cpuProfileDir?: string,
): Promise<ServerProcess> {
  const port = await getFreePort();
  const profile = cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`] : [];
  const child = spawnProcessGroup(process.execPath, [...profile, '-r', '@swc-node/register', script], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await pollUntil(async () => (await fetch(`${base}/healthz`)).ok, {
      timeoutMs: 60_000,
      intervalMs: 100,
      ignoreErrors: true,
      description: `${script} ready`,
    });
  } catch (error) {
    await stopProcessGroup(child, 1000);
    throw new Error(`${script} did not start:\n${child.output()}`, { cause: error });
  }
  // SIGTERM lets the process shut down cleanly, which is also when V8 writes the CPU profile.
  return { base, pid: child.pid, close: () => stopProcessGroup(child, 10_000) };
}
