import { ValidationError } from '@runplane/contracts';

/** A Pod's desired status (what the scheduler drives the workload towards). */
export type DesiredStatus = 'RUNNING' | 'EXITED' | 'TERMINATED';

/** Lifecycle actions of the v1 API. */
export type PodAction = 'start' | 'stop' | 'restart' | 'reset' | 'delete';

/** The part of a Pod the lifecycle rules look at. */
export interface LifecycleState {
  desiredStatus: DesiredStatus;
  locked: boolean;
  generation: number;
}

/** The outcome of an action: the new state and the bookkeeping to write with it. */
export interface LifecycleChange {
  desiredStatus: DesiredStatus;
  generation: number;
  /** Null when nothing changed (e.g. starting a running Pod): the row is left as it is. */
  lastStatusChange: string | null;
  /** Set when the container (re)starts. */
  startedAt: Date | null;
}

const VERB: Record<PodAction, string> = {
  start: 'Started',
  stop: 'Stopped',
  restart: 'Restarted',
  reset: 'Reset',
  delete: 'Terminated',
};

/** RunPod's free-text lifecycle note, e.g. "Stopped by User: Fri, 12 Jul 2024 19:14:40 GMT". */
export function statusNote(event: string, now: Date): string {
  return `${event} by User: ${now.toUTCString()}`;
}

const unchanged = (state: LifecycleState): LifecycleChange => ({
  desiredStatus: state.desiredStatus,
  generation: state.generation,
  lastStatusChange: null,
  startedAt: null,
});

function refuseLocked(state: LifecycleState, action: PodAction): void {
  if (state.locked && (action === 'stop' || action === 'reset')) {
    throw new ValidationError(
      `locked: the Pod is locked and cannot be ${action === 'stop' ? 'stopped' : 'reset'}; unlock it first`,
    );
  }
}

/**
 * The Pod state machine over desiredStatus RUNNING / EXITED / TERMINATED. Starting a running Pod or stopping an
 * exited one changes nothing; restart and reset bump `generation` so the reconciler recreates the container
 * (reset also wipes the container disk); a locked Pod refuses stop and reset; a terminated Pod accepts nothing.
 */
export function applyPodAction(state: LifecycleState, action: PodAction, now: Date): LifecycleChange {
  if (state.desiredStatus === 'TERMINATED') {
    throw new ValidationError(`desiredStatus: the Pod is terminated and cannot be ${VERB[action].toLowerCase()}`);
  }
  refuseLocked(state, action);
  const note = statusNote(VERB[action], now);
  switch (action) {
    case 'start':
      if (state.desiredStatus === 'RUNNING') return unchanged(state);
      return { desiredStatus: 'RUNNING', generation: state.generation, lastStatusChange: note, startedAt: now };
    case 'stop':
      if (state.desiredStatus === 'EXITED') return unchanged(state);
      return { desiredStatus: 'EXITED', generation: state.generation, lastStatusChange: note, startedAt: null };
    case 'restart':
    case 'reset':
      return { desiredStatus: 'RUNNING', generation: state.generation + 1, lastStatusChange: note, startedAt: now };
    case 'delete':
      return { desiredStatus: 'TERMINATED', generation: state.generation, lastStatusChange: note, startedAt: null };
  }
}

/** The container settings of a Pod that an update may change. */
export interface PodContainerSpec {
  image: string;
  dockerEntrypoint: string[];
  dockerStartCmd: string[];
  env: Record<string, string>;
  ports: string[];
  containerDiskInGb: number;
  volumeInGb: number;
  volumeMountPath: string;
}

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((value, index) => value === b[index]);

function sameEnv(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => b[key] === a[key]);
}

/** Fields whose change needs the container recreated (image, commands, env, ports or disks). */
export function resetFields(before: PodContainerSpec, after: PodContainerSpec): (keyof PodContainerSpec)[] {
  const changed: (keyof PodContainerSpec)[] = [];
  if (before.image !== after.image) changed.push('image');
  if (!sameList(before.dockerEntrypoint, after.dockerEntrypoint)) changed.push('dockerEntrypoint');
  if (!sameList(before.dockerStartCmd, after.dockerStartCmd)) changed.push('dockerStartCmd');
  if (!sameEnv(before.env, after.env)) changed.push('env');
  if (!sameList(before.ports, after.ports)) changed.push('ports');
  for (const disk of ['containerDiskInGb', 'volumeInGb', 'volumeMountPath'] as const) {
    if (before[disk] !== after[disk]) changed.push(disk);
  }
  return changed;
}

/**
 * What an update does to the lifecycle: a change to the container spec marks the Pod for reset (generation + 1,
 * a status note); a locked Pod refuses it, since locking exists to prevent resets.
 */
export function applyPodUpdate(
  state: LifecycleState,
  before: PodContainerSpec,
  after: PodContainerSpec,
  now: Date,
): LifecycleChange {
  if (state.desiredStatus === 'TERMINATED')
    throw new ValidationError('desiredStatus: the Pod is terminated and cannot be updated');
  const changed = resetFields(before, after);
  if (changed.length === 0) return unchanged(state);
  if (state.locked) {
    throw new ValidationError(
      `locked: the Pod is locked; changing ${changed.join(', ')} would reset it; unlock it first`,
    );
  }
  return {
    desiredStatus: state.desiredStatus,
    generation: state.generation + 1,
    lastStatusChange: statusNote('Reset for update', now),
    startedAt: state.desiredStatus === 'RUNNING' ? now : null,
  };
}
