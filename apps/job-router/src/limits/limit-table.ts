/** Job-API operations that carry their own rate and concurrency limits (RunPod's table). */
export const LIMITED_OPERATIONS = [
  'runsync',
  'run',
  'status',
  'stream',
  'cancel',
  'purge-queue',
  'openai',
  'requests',
  // Requests proxied to a load-balancing endpoint's workers (any method and path; a WebSocket counts once).
  'lb',
] as const;
/** One limited operation. */
export type LimitedOperation = (typeof LIMITED_OPERATIONS)[number];

/** Requests per window and concurrent requests of one operation on one endpoint; 0 means no limit. */
export interface OperationLimit {
  requests: number;
  concurrent: number;
}

/** RunPod's published base limits per endpoint (requests per 10 s / concurrent). */
export const DEFAULT_LIMITS: Readonly<Record<LimitedOperation, OperationLimit>> = {
  runsync: { requests: 2000, concurrent: 400 },
  run: { requests: 1000, concurrent: 200 },
  status: { requests: 2000, concurrent: 400 },
  stream: { requests: 2000, concurrent: 400 },
  cancel: { requests: 100, concurrent: 20 },
  'purge-queue': { requests: 2, concurrent: 0 },
  openai: { requests: 2000, concurrent: 400 },
  requests: { requests: 10, concurrent: 2 },
  lb: { requests: 2000, concurrent: 400 },
};

const ENTRY = /^([a-z-]+)=(\d+)\/(\d+)$/;

function isOperation(name: string): name is LimitedOperation {
  return (LIMITED_OPERATIONS as readonly string[]).includes(name);
}

/** Parses `run=1000/200,cancel=5/1` into overrides; throws with a message naming the bad entry. */
export function parseLimitOverrides(text: string): Partial<Record<LimitedOperation, OperationLimit>> {
  const overrides: Partial<Record<LimitedOperation, OperationLimit>> = {};
  for (const entry of text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const match = ENTRY.exec(entry);
    if (!match) throw new Error(`"${entry}": expected <operation>=<requests>/<concurrent>`);
    const [, name = '', requests, concurrent] = match;
    if (!isOperation(name)) throw new Error(`"${entry}": unknown operation (one of ${LIMITED_OPERATIONS.join(', ')})`);
    overrides[name] = { requests: Number(requests), concurrent: Number(concurrent) };
  }
  return overrides;
}
