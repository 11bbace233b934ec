import { kubeErrorMessage, kubeStatusOf } from '@runplane/kube';
import { Slots } from '../../batching/slots';
import type { WorkloadSpec } from '../compute-driver';
import type { TokenSecrets } from './token-secrets';
import type { WorkloadObjects } from './workload-objects';
import type { WorkloadStatuses } from './workload-statuses';
import type { WorkloadWriter } from './workload-writer';

/** Workloads created concurrently (see {@link Slots}). */
const CREATES_IN_FLIGHT = 100;

/** A 4xx other than conflict: the apiserver refused the object itself (retrying the same spec cannot help). */
function isRefused(error: unknown): boolean {
  const status = kubeStatusOf(error);
  return status !== undefined && status >= 400 && status < 500 && status !== 409 && status !== 429;
}

/** What {@link WorkloadCreator} writes with and reports to. */
export interface WorkloadCreatorOptions {
  writer: WorkloadWriter;
  tokens: TokenSecrets;
  statuses: WorkloadStatuses;
  /** Tells the scheduler loop that a workload's creation ended. */
  changed: (podId: string) => void;
  log: (message: string, error?: unknown) => void;
}

/**
 * Creates every object of a workload in the background, the objects of at most CREATES_IN_FLIGHT workloads at once. A
 * refused object fails the workload (kept as its status until the next attempt); a transient failure is only logged:
 * the next pass finds no pod and tries again.
 */
export class WorkloadCreator {
  private readonly inFlight = new Set<Promise<void>>();
  /** Workloads whose objects are being sent to the apiserver at once (two requests each for a worker). */
  private readonly creating = new Slots(CREATES_IN_FLIGHT);

  constructor(private readonly options: WorkloadCreatorOptions) {}

  /** Starts creating the workload's objects; its status is CREATING until the informer shows its pod. */
  create(spec: WorkloadSpec, objects: WorkloadObjects): void {
    const { writer, tokens, statuses } = this.options;
    const pending = statuses.creating(spec);
    const settle = (): void => statuses.settle(spec.podId, pending);
    const token = objects.tokenSecret;
    const work = (token ? tokens.ready(spec.podId, token.name, token.data) : Promise.resolve())
      .then(() => this.creating.run(() => writer.createAll(objects)))
      .then(
        () => {
          // Usually the informer has shown the pod by now; otherwise the driver settles it when it does.
          if (statuses.podOf(spec.podId)) settle();
        },
        (error: unknown) => {
          settle();
          if (isRefused(error)) statuses.refused(spec, `The cluster refused the workload: ${kubeErrorMessage(error)}`);
          else this.options.log(`creating the workload of Pod ${spec.podId} failed; retrying on the next pass`, error);
        },
      )
      .finally(() => {
        this.inFlight.delete(work);
        this.options.changed(spec.podId);
      });
    this.inFlight.add(work);
  }

  /** Resolves once every creation under way has ended, however it did. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }
}
