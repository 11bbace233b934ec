import { createHash } from 'node:crypto';
import type { Redis } from '@runplane/queue';

/** A Lua script run by its SHA (EVALSHA), loaded on first use or after a Redis restart (NOSCRIPT). */
export class LuaScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /** Runs the script with no KEYS (its keys derive from ARGV[1], the key base) and the given ARGV. */
  async run<T>(redis: Redis, args: (string | number)[]): Promise<T> {
    try {
      return (await redis.evalsha(this.sha, 0, ...args)) as T;
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return (await redis.eval(this.source, 0, ...args)) as T;
    }
  }
}

/** Pairs a flat [ep, id, ep, id, ...] script reply. */
export function pairs(flat: string[]): { endpointId: string; id: string }[] {
  const out: { endpointId: string; id: string }[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push({ endpointId: flat[i] as string, id: flat[i + 1] as string });
  return out;
}
