/** How many calls of a method have answered so far (see {@link countAnswered}). */
export interface AnsweredCalls {
  readonly count: number;
}

/**
 * Wraps the async method `method` of `target` so that each call is counted once it has answered (resolved): a test
 * that waits for the count knows the answer is back, not merely asked for. Returns the count's reader.
 */
export function countAnswered<T extends object, K extends keyof T>(target: T, method: K): AnsweredCalls {
  const original = target[method] as unknown as (...args: unknown[]) => Promise<unknown>;
  const calls = { count: 0 };
  const counted = async (...args: unknown[]) => {
    const answer = await original.apply(target, args);
    calls.count += 1;
    return answer;
  };
  Object.assign(target, { [method]: counted });
  return calls;
}
