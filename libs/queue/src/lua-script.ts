import { createHash } from 'node:crypto';
import type { Redis } from './redis';

/**
 * A Lua script run by its SHA (EVALSHA), loaded on first use or after a Redis restart (NOSCRIPT). Keys given as
 * KEYS get the client's keyPrefix; scripts that derive their keys from an ARGV base pass none.
 */
export class LuaScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /** Runs the script with no KEYS and the given ARGV. */
  run<T>(redis: Redis, args: (string | number)[]): Promise<T> {
    return this.runWithKeys<T>(redis, [], args);
  }

  /** Runs the script with KEYS and ARGV. */
  async runWithKeys<T>(redis: Redis, keys: string[], args: (string | number)[]): Promise<T> {
    try {
      return (await redis.evalsha(this.sha, keys.length, ...keys, ...args)) as T;
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return (await redis.eval(this.source, keys.length, ...keys, ...args)) as T;
    }
  }
}
