// The raw BullMQ job catalog shared by the job API suite and its minimal-pipeline server process.
import { z } from 'zod';
import { defineJobCatalog } from '@runplane/queue';

/** The raw BullMQ baseline's job catalog. */
export const catalog = defineJobCatalog({
  'bench.job': { queue: 'bench-jobs', schema: z.object({ input: z.record(z.string(), z.unknown()) }), attempts: 1 },
});
