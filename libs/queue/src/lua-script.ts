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

/** What one call of a script sends: its KEYS (which get the client's keyPrefix) and its ARGV, in order. */
export interface LuaCall {
  keys?: string[];
  argv: (string | number)[];
}

/**
 * A Lua script called with named arguments: `A` is the options object a caller passes, `R` the script's reply. The
 * options are mapped to KEYS and ARGV in one place (the `toCall` given to {@link defineLuaScript}), beside the
 * script's source, so no call site depends on argument positions.
 */
export class NamedLuaScript<A, R> {
  private readonly script: LuaScript;

  constructor(
    source: string,
    private readonly toCall: (args: A) => LuaCall,
  ) {
    this.script = new LuaScript(source);
  }

  /** Runs the script on `redis` (the connection decides what it is ordered with; see the caller's rule). */
  run(redis: Redis, args: A): Promise<R> {
    const { keys = [], argv } = this.toCall(args);
    return this.script.runWithKeys<R>(redis, keys, argv);
  }
}

/** Declares a script with named arguments: `toCall` maps the options object to KEYS and ARGV. */
export function defineLuaScript<A, R>(source: string, toCall: (args: A) => LuaCall): NamedLuaScript<A, R> {
  return new NamedLuaScript<A, R>(source, toCall);
}
