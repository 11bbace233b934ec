/** An app's readiness probe. */
export interface ReadinessTarget {
  name: string;
  url: string;
}

/** Raised when an app is not ready in time, or waiting was abandoned. */
export class NotReadyError extends Error {}

async function isReady(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.body?.cancel();
    return response.status === 200;
  } catch {
    return false;
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/** Polls every target's /readyz until all answer 200; throws on timeout or abort. */
export async function waitForReady(targets: ReadinessTarget[], timeoutMs: number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pending = new Map(targets.map((target) => [target.name, target.url]));
  while (pending.size > 0) {
    if (signal.aborted) throw new NotReadyError('stopped while waiting for the apps to become ready');
    const results = await Promise.all([...pending].map(async ([name, url]) => [name, await isReady(url)] as const));
    for (const [name, ready] of results) if (ready) pending.delete(name);
    if (pending.size === 0) return;
    if (Date.now() > deadline) {
      throw new NotReadyError(`not ready after ${timeoutMs} ms: ${[...pending.keys()].join(', ')}`);
    }
    await pause(250, signal);
  }
}
