// The memory of this process (the one the Kubernetes curve runs the scheduler in), after a full garbage collection so
// heapUsed counts live objects only.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Resident set and live heap, in bytes. */
export interface Memory {
  rss: number;
  heapUsed: number;
}

let collect: (() => void) | undefined;

/** V8's `gc()`: exposed by flag at run time, reached through a fresh context (the flag applies to new contexts). */
function collectGarbage(): void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}

/** This process's memory after two full collections (the second frees what the first one's finalizers released). */
export function memoryNow(): Memory {
  collectGarbage();
  collectGarbage();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}
