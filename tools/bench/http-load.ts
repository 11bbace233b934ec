import autocannon from 'autocannon';

/** Throughput and latency of one load run. */
export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p99Ms: number;
  non2xx: number;
}

/** Drives one URL with autocannon for a fixed time and reports throughput and tail latency. */
export async function load(
  name: string,
  url: string,
  options: { durationSeconds: number; connections: number; headers?: Record<string, string> },
): Promise<LoadResult> {
  const result = await autocannon({
    url,
    duration: options.durationSeconds,
    connections: options.connections,
    headers: options.headers ?? {},
  });
  return { name, requestsPerSecond: result.requests.average, p99Ms: result.latency.p99, non2xx: result.non2xx };
}

/** Prints results as a table with each row's throughput as a ratio of the first (the baseline). */
export function printRatios(title: string, results: LoadResult[]): void {
  const baseline = results[0];
  if (!baseline) return;
  console.log(`\n${title}`);
  console.log(
    'scenario'.padEnd(40),
    'req/s'.padStart(10),
    'p99 ms'.padStart(8),
    'ratio'.padStart(7),
    'non-2xx'.padStart(8),
  );
  for (const row of results) {
    const ratio = baseline.requestsPerSecond > 0 ? row.requestsPerSecond / baseline.requestsPerSecond : 0;
    console.log(
      row.name.padEnd(40),
      row.requestsPerSecond.toFixed(0).padStart(10),
      row.p99Ms.toFixed(1).padStart(8),
      ratio.toFixed(2).padStart(7),
      String(row.non2xx).padStart(8),
    );
  }
}
