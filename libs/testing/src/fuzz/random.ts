import { randomInt } from 'node:crypto';

/** A seeded source of choices (mulberry32), so a fuzz run is replayed exactly from its seed. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed | 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** True with the given probability. */
  chance(probability: number): boolean {
    return this.next() < probability;
  }

  /** An integer in [0, below). */
  below(below: number): number {
    return Math.floor(this.next() * below);
  }

  /** One element of a non-empty list. */
  pick<T>(values: readonly T[]): T {
    if (values.length === 0) throw new Error('pick from an empty list');
    return values[this.below(values.length)] as T;
  }

  /** Each element of a list, kept with the given probability. */
  some<T>(values: readonly T[], probability: number): T[] {
    return values.filter(() => this.chance(probability));
  }
}

/** The random source of request `index` of a run: each request can be rebuilt from the seed alone. */
export function requestRandom(seed: number, index: number): Random {
  return new Random(Math.imul(seed ^ 0x5bd1e995, 0x9e3779b1) + index);
}

/** Environment variable that replays a fuzz run: `FUZZ_SEED=<seed printed by the run>`. */
export const FUZZ_SEED_ENV = 'FUZZ_SEED';

/** The run's seed: FUZZ_SEED when set (a replay), else a new random one. */
export function fuzzSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env[FUZZ_SEED_ENV];
  if (given === undefined || given === '') return randomInt(2 ** 31);
  const seed = Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`${FUZZ_SEED_ENV} must be an integer, got ${given}`);
  return seed;
}
