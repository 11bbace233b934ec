// The processes of the gateway read-path suite: the gateway itself (apps/gateway/src/main.ts, as deployed) and the
// bare Fastify + pg baseline, each on its own port so the load generator does not share their event loops.
import { randomBytes } from 'node:crypto';
import { getFreePort } from '@runplane/testing';
import { nodeScriptArgs, REPO_ROOT, startBenchProcess } from '../bench-process';

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
  const base = `http://127.0.0.1:${port}`;
  const server = await startBenchProcess({
    name: script,
    command: process.execPath,
    args: nodeScriptArgs(script, cpuProfileDir),
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    ready: async () => (await fetch(`${base}/healthz`)).ok,
    description: `${script} ready`,
  });
  return { base, pid: server.pid, close: server.stop };
}
