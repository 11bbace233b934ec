import { type KubeClients, LeaderElector } from '@runplane/kube';
import type { LeaderElection } from '../../leader/leader-election';

/** Settings of the Lease election. */
export interface LeaseElectionOptions {
  coordination: KubeClients['coordination'];
  namespace: string;
  lease: string;
  identity: string;
  /** A standby takes over this long after the leader stopped renewing. */
  ttlMs: number;
  onStartedLeading?: () => void;
  log: (message: string, error?: unknown) => void;
}

/**
 * The scheduler's leader election on a Kubernetes Lease (libs/kube LeaderElector). The elector runs its own renew
 * loop from the first call on; the control loop only asks whether this replica leads. `release()` hands the Lease
 * back so a standby takes over on its next try instead of waiting for expiry.
 */
export class LeaseLeaderElection implements LeaderElection {
  private readonly elector: LeaderElector;
  private started = false;

  constructor(options: LeaseElectionOptions) {
    const step = Math.max(100, Math.floor(options.ttlMs / 5));
    this.elector = new LeaderElector({
      coordination: options.coordination,
      name: options.lease,
      namespace: options.namespace,
      identity: options.identity,
      leaseDurationMs: options.ttlMs,
      renewMs: step,
      retryMs: step,
      onStartedLeading: () => options.onStartedLeading?.(),
      onStoppedLeading: () => undefined,
      onError: (error) => options.log('leader election call failed', error),
    });
  }

  acquireOrRenew(): Promise<boolean> {
    if (!this.started) {
      this.started = true;
      this.elector.start();
    }
    return Promise.resolve(this.elector.isLeader());
  }

  isLeader(): boolean {
    return this.elector.isLeader();
  }

  async release(): Promise<void> {
    this.started = false;
    await this.elector.stop();
  }
}
