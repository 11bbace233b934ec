// Preloaded into the benchmarked job-router by the workers curve (NODE_OPTIONS `--expose-gc --require`), never by
// Runplane itself: on SIGUSR2 it runs a full garbage collection and writes the process's memory use
// (process.memoryUsage(), JSON) to BENCH_MEMORY_FILE, so the curve reads live heap, not resident pages.
import { renameSync, writeFileSync } from 'node:fs';

const file = process.env['BENCH_MEMORY_FILE'];
const gc = (globalThis as { gc?: () => void }).gc;

if (file && gc) {
  process.on('SIGUSR2', () => {
    gc();
    writeFileSync(`${file}.tmp`, JSON.stringify(process.memoryUsage()));
    renameSync(`${file}.tmp`, file);
  });
}
