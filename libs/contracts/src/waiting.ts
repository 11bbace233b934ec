import { z } from 'zod';

/**
 * A worker's cold start, in order: its row was placed on a machine, the cluster scheduled its pod, its image was
 * pulled, its container started, the job engine heard its first ping, it took its first job. The local driver has no
 * `scheduled` or `imagePulled` phase.
 */
export const COLD_START_PHASES = [
  'placed',
  'scheduled',
  'imagePulled',
  'containerStarted',
  'firstPing',
  'firstJob',
] as const;
/** One phase of a worker's cold start. */
export type ColdStartPhase = (typeof COLD_START_PHASES)[number];

/** Runplane's extension on a worker: when it reached each cold-start phase (ISO times; a phase not reached is absent). */
export const coldStartDto = z.object({
  placed: z.string().optional(),
  scheduled: z.string().optional(),
  imagePulled: z.string().optional(),
  containerStarted: z.string().optional(),
  firstPing: z.string().optional(),
  firstJob: z.string().optional(),
});
/** When a worker reached each cold-start phase. */
export type ColdStartDto = z.infer<typeof coldStartDto>;

/** Why an endpoint's queued jobs wait, most telling first. */
export const WAITING_CODES = [
  'CRASH_LOOP',
  'NO_CAPACITY',
  'MAX_WORKERS',
  'WORKERS_STARTING',
  'LOW_PRIORITY',
  'NO_WORKER',
  'WORKERS_BUSY',
] as const;
/** One reason queued jobs wait. */
export type WaitingCode = (typeof WAITING_CODES)[number];

/**
 * Runplane's extension `waitingReason` on an `IN_QUEUE` job's status, `/health` and v2 `/workers`: why the endpoint's
 * queued jobs wait, in words (`message`) and as a code, with what the code needs: the starting workers' furthest
 * `phase`, the GPU types without capacity, the crashed workers' `exitReason`, the `workersMax` reached.
 */
export const waitingReasonDto = z.object({
  code: z.enum(WAITING_CODES),
  message: z.string(),
  phase: z.enum(COLD_START_PHASES).optional(),
  gpuTypeIds: z.array(z.string()).optional(),
  exitReason: z.string().optional(),
  workersMax: z.number().int().optional(),
  /** When the scheduler computed it (ISO time). */
  at: z.string(),
});
/** Why an endpoint's queued jobs wait. */
export type WaitingReasonDto = z.infer<typeof waitingReasonDto>;
