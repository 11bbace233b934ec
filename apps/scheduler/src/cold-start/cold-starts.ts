import { COLD_START_PHASES, type ColdStartPhase } from '@runplane/contracts';
import type { ColdStartRecord, ColdStartRow, ColdStartsRepository } from '@runplane/workloads';
import { MicroBatch } from '../batching/micro-batch';
import type { WorkloadStatus } from '../drivers/compute-driver';

/** Where each phase's seconds go (the `runplane_worker_cold_start_seconds` histogram). */
export interface PhaseSeconds {
  observe(labels: { phase: ColdStartPhase }, seconds: number): void;
}

/** Phases a worker reached (ms since the epoch). */
type Reached = Map<ColdStartPhase, number>;

/** Phases seen in one observation; a phase not seen is absent or null. */
export type PhaseTimes = Partial<Record<ColdStartPhase, Date | null>>;

/** The times of the phases before and after `phase` that the worker reached: a new phase is kept between them. */
function bounds(reached: Reached, phase: ColdStartPhase): { before: number | null; after: number | null } {
  const index = COLD_START_PHASES.indexOf(phase);
  let before: number | null = null;
  let after: number | null = null;
  for (const [known, at] of reached) {
    const position = COLD_START_PHASES.indexOf(known);
    if (position < index) before = Math.max(before ?? at, at);
    else if (position > index) after = Math.min(after ?? at, at);
  }
  return { before, after };
}

/**
 * Each worker's cold start by phase (placed → scheduled → imagePulled → containerStarted → firstPing → firstJob): the
 * autoscaler and the reconciler note what they see, each phase is kept once, in order (a phase seen late is dated no
 * earlier than the one before it), written to the worker's row and observed in the histogram as the time since the
 * phase before it. A restarted scheduler reads what the row holds before noting more, so nothing is counted twice.
 * The rows read and written in one event-loop turn (a pass noting hundreds of workers) take one query each way.
 */
export class ColdStarts {
  private readonly workers = new Map<string, Promise<Reached>>();
  /** Phases read so far, for {@link furthest} (synchronous). */
  private readonly known = new Map<string, Reached>();

  /** Workers whose driver reports the image pull (Kubernetes: the pod's `Pulled` Event). */
  private readonly pullsReported = new Set<string>();

  private histogram: PhaseSeconds | null = null;

  private readonly reads: MicroBatch<string, ColdStartRow | null>;
  private readonly writes: MicroBatch<ColdStartRecord, undefined>;

  constructor(private readonly repository: Pick<ColdStartsRepository, 'recordMany' | 'readMany'>) {
    this.reads = new MicroBatch(async (ids) => {
      const rows = await repository.readMany([...new Set(ids)]);
      return ids.map((id) => rows.get(id) ?? null);
    });
    this.writes = new MicroBatch(async (records) => {
      await repository.recordMany(records);
      return records.map(() => undefined);
    });
  }

  /** Reads the rows of the workers not read yet in one query (a pass's workers, before it notes them one by one). */
  async preload(workerIds: readonly string[]): Promise<void> {
    const missing = workerIds.filter((id) => !this.workers.has(id));
    if (missing.length === 0) return;
    const rows = await this.repository.readMany(missing);
    for (const id of missing) if (!this.workers.has(id)) this.track(id, this.fromRow(id, rows.get(id) ?? null));
  }

  /** Observes each phase's seconds in `histogram` from now on (`runplane_worker_cold_start_seconds`). */
  observeIn(histogram: PhaseSeconds): void {
    this.histogram = histogram;
  }

  /** Notes the phases a worker reached at the given times (each only the first time). */
  async note(workerId: string, seen: PhaseTimes): Promise<void> {
    const reached = await this.reached(workerId);
    if ('imagePulled' in seen) this.pullsReported.add(workerId);
    // A worker that took a job was heard from: its take is its first ping if none came before.
    const phases = this.withPullFallback(
      workerId,
      reached,
      seen.firstJob ? { firstPing: seen.firstJob, ...seen } : seen,
    );
    const added: Record<string, Date> = {};
    for (const phase of COLD_START_PHASES) {
      const seen = phases[phase];
      if (!seen || reached.has(phase)) continue;
      const { before, after } = bounds(reached, phase);
      const at = Math.min(Math.max(seen.getTime(), before ?? -Infinity), after ?? Infinity);
      reached.set(phase, at);
      added[phase] = new Date(at);
      if (before !== null) this.histogram?.observe({ phase }, (at - before) / 1000);
    }
    if (Object.keys(added).length > 0) await this.writes.load({ podId: workerId, phases: added });
  }

  /** The furthest phase any of these workers reached (null when none reached one this scheduler knows of). */
  furthest(workerIds: readonly string[]): ColdStartPhase | null {
    let furthest = -1;
    for (const id of workerIds) {
      const reached = this.known.get(id);
      for (const phase of reached?.keys() ?? []) furthest = Math.max(furthest, COLD_START_PHASES.indexOf(phase));
    }
    return COLD_START_PHASES[furthest] ?? null;
  }

  /** Forgets the workers not in `workerIds` (every worker row a pass read): removed by other paths, e.g. with their endpoint. */
  retain(workerIds: readonly string[]): void {
    const kept = new Set(workerIds);
    for (const id of this.workers.keys()) if (!kept.has(id)) this.forget(id);
  }

  /** The worker is gone: its phases stay on its row only. */
  forget(workerId: string): void {
    this.workers.delete(workerId);
    this.known.delete(workerId);
    this.pullsReported.delete(workerId);
  }

  /** What the worker's row holds; its placement (the row's creation) first, so every later phase has one before it. */
  private async fromRow(workerId: string, row: ColdStartRow | null): Promise<Reached> {
    const reached: Reached = new Map();
    for (const phase of COLD_START_PHASES) {
      const at = row?.phases[phase];
      if (at) reached.set(phase, Date.parse(at));
    }
    if (row && !reached.has('placed')) {
      reached.set('placed', row.createdAt.getTime());
      await this.writes.load({ podId: workerId, phases: { placed: row.createdAt } });
    }
    this.known.set(workerId, reached);
    return reached;
  }

  /**
   * A worker heard from (first ping) whose driver reports pulls but never reported its own (the `Pulled` Event expired
   * or was never written) has its image pulled at its container's start: the latest the pull can have ended.
   */
  private withPullFallback(workerId: string, reached: Reached, phases: PhaseTimes): PhaseTimes {
    if (!phases.firstPing || phases.imagePulled || reached.has('imagePulled') || !this.pullsReported.has(workerId))
      return phases;
    const started = reached.get('containerStarted') ?? phases.containerStarted?.getTime();
    return started === undefined ? phases : { ...phases, imagePulled: new Date(started) };
  }

  private reached(workerId: string): Promise<Reached> {
    let loading = this.workers.get(workerId);
    if (!loading) {
      loading = this.reads.load(workerId).then((row) => this.fromRow(workerId, row));
      this.track(workerId, loading);
    }
    return loading;
  }

  private track(workerId: string, loading: Promise<Reached>): void {
    // A failed read is tried again on the next note.
    loading.catch(() => this.workers.delete(workerId));
    this.workers.set(workerId, loading);
  }
}

/**
 * Notes what an autoscaler pass saw of an endpoint's workers (`seen[i]` is `rows[i]`'s): placed, container started,
 * first ping, first job. The container's start is the row's `lastStartedAt` only once the reconciler observed the
 * workload running: until then that field holds the row's creation (the Pod API's rent time), not a start.
 */
export async function noteFromPass(
  coldStarts: ColdStarts,
  rows: readonly { id: string; createdAt: Date; lastStartedAt: Date | null; observedPhase: string | null }[],
  seen: readonly { initializing: boolean; busy: boolean }[],
  now: Date,
): Promise<void> {
  await coldStarts.preload(rows.map((row) => row.id));
  for (const [index, row] of rows.entries()) {
    const worker = seen[index];
    await coldStarts.note(row.id, {
      placed: row.createdAt,
      containerStarted: row.observedPhase === 'RUNNING' ? row.lastStartedAt : null,
      firstPing: worker && !worker.initializing ? now : null,
      firstJob: worker?.busy ? now : null,
    });
  }
}

/**
 * The phases a driver reports of a workload: Kubernetes' pod scheduled and image pulled (present, if null, for a driver
 * that reports pulls), and its container's start.
 */
export function driverPhases(status: Pick<WorkloadStatus, 'phase' | 'startedAt' | 'coldStart'>): PhaseTimes {
  const containerStarted = status.phase === 'RUNNING' ? status.startedAt : null;
  if (!status.coldStart) return { scheduled: null, containerStarted };
  return { scheduled: status.coldStart.scheduledAt, imagePulled: status.coldStart.imagePulledAt, containerStarted };
}
