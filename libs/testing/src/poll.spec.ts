import { pollUntil } from './poll';

describe('pollUntil', () => {
  it('resolves with the first value that is not undefined, null or false', async () => {
    let calls = 0;
    const value = await pollUntil(
      () => {
        calls += 1;
        if (calls === 1) return undefined;
        if (calls === 2) return null;
        if (calls === 3) return false;
        return { calls };
      },
      { intervalMs: 1 },
    );
    expect(value).toEqual({ calls: 4 });
  });

  it('keeps 0 and empty strings as results and awaits async functions', async () => {
    await expect(pollUntil(async () => 0)).resolves.toBe(0);
    await expect(pollUntil(() => '')).resolves.toBe('');
  });

  it('rejects after the timeout, naming the condition', async () => {
    const started = Date.now();
    await expect(
      pollUntil(() => false, { timeoutMs: 100, intervalMs: 10, description: 'worker ready' }),
    ).rejects.toThrow('pollUntil: worker ready not met within 100 ms');
    // It does not give up before its timeout.
    expect(Date.now() - started).toBeGreaterThanOrEqual(95);
  });

  it('fails fast on an error unless told to ignore errors', async () => {
    await expect(
      pollUntil(() => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    let calls = 0;
    const value = await pollUntil(
      () => {
        calls += 1;
        if (calls < 3) throw new Error('not yet');
        return 'up';
      },
      { ignoreErrors: true, intervalMs: 1 },
    );
    expect(value).toBe('up');
    await expect(
      pollUntil(
        () => {
          throw new Error('down');
        },
        { ignoreErrors: true, timeoutMs: 30, intervalMs: 5 },
      ),
    ).rejects.toThrow(/last error: Error: down/);
  });
});
