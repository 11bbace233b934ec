/** Options for {@link pollUntil}. */
export interface PollOptions {
  /** Give up after this long (default 5000 ms). */
  timeoutMs?: number;
  /** Wait between attempts (default 25 ms). */
  intervalMs?: number;
  /** Treat a throwing attempt as "not yet" instead of failing at once (e.g. a server still starting). */
  ignoreErrors?: boolean;
  /** Named in the timeout error. */
  description?: string;
}

/** What counts as "not yet": a poll function returns one of these until the condition holds. */
type NotYet = undefined | null | false;

/**
 * Calls `fn` until it returns something other than undefined, null or false, and resolves with
 * that value; rejects once `timeoutMs` has passed. Use instead of sleeping in tests.
 */
export async function pollUntil<T>(
  fn: () => T | NotYet | Promise<T | NotYet>,
  options: PollOptions = {},
): Promise<Exclude<T, NotYet>> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const intervalMs = options.intervalMs ?? 25;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value !== undefined && value !== null && value !== false) return value as Exclude<T, NotYet>;
    } catch (err) {
      if (options.ignoreErrors !== true) throw err;
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const what = options.description ?? 'condition';
      const cause = lastError === undefined ? '' : ` (last error: ${String(lastError)})`;
      throw new Error(`pollUntil: ${what} not met within ${timeoutMs} ms${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, Math.max(0, deadline - Date.now()))));
  }
}
