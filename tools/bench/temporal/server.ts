// Temporal's development server as the peer under benchmark: `temporal server start-dev` on a free port, its default
// in-memory SQLite store, no Web UI, and the request-rate throttles lifted as the job-router's JOB_RATE_LIMITS are.
import { getFreePort } from '@runplane/testing';
import { startBenchProcess } from '../bench-process';
import { runClient } from './client';

/** A running development server. */
export interface TemporalServer {
  /** The frontend's gRPC host:port. */
  address: string;
  pid: number;
  close(): Promise<void>;
}

/** Request-rate throttles (requests per second per service, not capacities) set out of reach for the benchmark. */
const UNTHROTTLED = [
  'frontend.rps',
  'frontend.namespaceRPS',
  'matching.rps',
  'history.rps',
  'matching.persistenceMaxQPS',
];

/** The `start-dev` arguments: loopback, `port`, no UI, errors only, default store (in-memory SQLite), unthrottled. */
export function startDevArgs(port: number): string[] {
  const dynamicConfig = UNTHROTTLED.flatMap((key) => ['--dynamic-config-value', `${key}=1000000`]);
  return [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--headless',
    '--log-level',
    'error',
  ].concat(dynamicConfig);
}

/** Starts the development server and resolves once the bench client finds its `default` namespace answering. */
export async function startTemporalServer(binaries: { temporal: string; client: string }): Promise<TemporalServer> {
  const port = await getFreePort();
  const address = `127.0.0.1:${port}`;
  const server = await startBenchProcess({
    name: 'temporal server start-dev',
    command: binaries.temporal,
    args: startDevArgs(port),
    cwd: process.cwd(),
    env: { ...process.env },
    ready: async () =>
      (await runClient(binaries.client, address, ['-mode', 'ready', '-ready-within', '1s'])).mode === 'ready',
    description: 'temporal dev server ready',
    timeoutMs: 120_000,
    intervalMs: 500,
    failGraceMs: 5000,
  });
  return { address, pid: server.pid, close: server.stop };
}
