// GET /v1/endpoints and GET /v2/serverless (its first page) through a real gateway process on the world's database:
// the p50 latency of each list as the account's endpoints grow.
import { ms, percentilesOf } from '../results';
import { call } from '../jobs/router';
import { type ServerProcess, startServer } from '../bench-process';
import { gatewayBenchEnv } from '../gateway/processes';
import type { World } from './endpoints-world';

/** Requests per list and size (lists of 10,000 endpoints take long: few, but more than one). */
const SAMPLES = 15;

export interface ListLatency {
  v1Ms: number;
  v2Ms: number;
}

export interface ListRunner {
  measure(): Promise<ListLatency>;
  close(): Promise<void>;
}

async function p50(url: string, secret: string): Promise<number> {
  const headers = { authorization: `Bearer ${secret}` };
  // The first request warms the gateway's caches (the key, the account) for this size.
  await call(url, { headers });
  const latencies: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    const start = process.hrtime.bigint();
    const response = await call(url, { headers });
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${response.text.slice(0, 200)}`);
    latencies.push(ms(start));
  }
  return percentilesOf(latencies.sort((a, b) => a - b)).p50;
}

/** Starts the gateway (apps/gateway/src/main.ts, as deployed) on the world's database and Redis prefix. */
export async function listRunner(world: World, cpuProfileDir?: string): Promise<ListRunner> {
  const env = gatewayBenchEnv(world.databaseUrl, world.prefix.slice(0, -1));
  const gateway: ServerProcess = await startServer('apps/gateway/src/main.ts', env, cpuProfileDir);
  return {
    measure: async () => ({
      v1Ms: await p50(`${gateway.base}/v1/endpoints`, world.secret),
      v2Ms: await p50(`${gateway.base}/v2/serverless`, world.secret),
    }),
    close: () => gateway.close(),
  };
}
