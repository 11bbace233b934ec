// The Go bench client (cmd/peer-bench): one run of one mode against the development server, its JSON answer parsed.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** What one peer-bench run prints: the measured phase's throughput or latency, and the CPU spent in it. */
export interface ClientResult {
  mode: string;
  unit: string;
  count: number;
  perSecond: number;
  p50: number;
  p99: number;
  cpuMs: number;
  /** The CPU the server process (`-server-pid`) spent in the same phase. */
  serverCpuMs: number;
  /** Handler runs that were retries: completions the server failed to record, recovered by the activity timeout. */
  retried: number;
}

/** Runs the bench client against `address` with `args` and answers its result; its stderr becomes the error. */
export async function runClient(binary: string, address: string, args: string[]): Promise<ClientResult> {
  const { stdout } = await exec(binary, ['-address', address, ...args], { maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout) as ClientResult;
}
