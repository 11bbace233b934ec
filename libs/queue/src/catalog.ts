import type { z } from 'zod';

/** Retry spacing for a job kind. */
export interface JobBackoff {
  type: 'fixed' | 'exponential';
  delayMs: number;
}

/** One job kind: the queue it runs on, its payload schema and its retry policy. */
export interface JobDefinition<Q extends string = string, S extends z.ZodType = z.ZodType> {
  queue: Q;
  schema: S;
  /** Total tries including the first (1 = never retried). */
  attempts: number;
  backoff?: JobBackoff;
  /** A try running longer than this fails (and is retried if attempts remain); its handler's signal is aborted. */
  timeoutMs?: number;
}

/** Job name (`domain.verb`) → definition. */
export type JobCatalog = Record<string, JobDefinition>;

/** Queue names used by a catalog. */
export type QueueNameOf<C extends JobCatalog> = C[keyof C]['queue'];

/** Job names of a catalog that run on queue Q. */
export type JobNamesIn<C extends JobCatalog, Q extends string> = {
  [N in keyof C & string]: C[N]['queue'] extends Q ? N : never;
}[keyof C & string];

/** What a producer passes for job N (the schema's input). */
export type JobPayload<C extends JobCatalog, N extends keyof C> = z.input<C[N]['schema']>;

/** What a handler receives for job N (the schema's parsed output). */
export type JobData<C extends JobCatalog, N extends keyof C> = z.output<C[N]['schema']>;

/** Raised at startup when a catalog, queue or worker is wired wrongly. */
export class JobCatalogError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobCatalogError';
  }
}

const JOB_NAME = /^[a-z][a-zA-Z0-9]*(\.[a-z][a-zA-Z0-9]*)+$/;
const QUEUE_NAME = /^[a-z][a-z0-9-]*$/;

function checkDefinition(name: string, definition: JobDefinition): void {
  if (!JOB_NAME.test(name)) throw new JobCatalogError(`Job name "${name}" must look like "domain.verb"`);
  if (!QUEUE_NAME.test(definition.queue)) {
    throw new JobCatalogError(`Job "${name}": queue "${definition.queue}" must be lowercase letters, digits and "-"`);
  }
  if (!Number.isInteger(definition.attempts) || definition.attempts < 1) {
    throw new JobCatalogError(`Job "${name}": attempts must be an integer >= 1`);
  }
  if (definition.backoff && !(definition.backoff.delayMs >= 0)) {
    throw new JobCatalogError(`Job "${name}": backoff.delayMs must be >= 0`);
  }
  if (definition.timeoutMs !== undefined && !(definition.timeoutMs > 0)) {
    throw new JobCatalogError(`Job "${name}": timeoutMs must be > 0`);
  }
}

/** Declare a queue's job kinds once; producers and processors import the same entries. Throws on bad entries. */
export function defineJobCatalog<const C extends JobCatalog>(catalog: C): C {
  for (const [name, definition] of Object.entries(catalog)) checkDefinition(name, definition);
  return catalog;
}

/** Names of the catalog's jobs that run on `queue`. */
export function jobNamesIn<C extends JobCatalog, Q extends QueueNameOf<C>>(catalog: C, queue: Q): JobNamesIn<C, Q>[] {
  return Object.keys(catalog).filter((name) => catalog[name]?.queue === queue) as JobNamesIn<C, Q>[];
}
