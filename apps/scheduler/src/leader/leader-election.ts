import { randomUUID } from 'node:crypto';
import type { Redis } from '@runplane/queue';

/**
 * One scheduler replica at a time runs the control loops (reconciler, autoscaler, usage); the others stand by.
 * The local driver uses a Redis lock; the kubernetes driver uses a Lease.
 */
export interface LeaderElection {
  /** Tries to become (or stay) leader; true while this replica holds the lease. */
  acquireOrRenew(): Promise<boolean>;
  isLeader(): boolean;
  /** Gives the lease up at once so a standby takes over without waiting for it to expire. */
  release(): Promise<void>;
}

// Renew or release only a lock we still own: compare the token, then act, atomically.
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** Leader election on a Redis key (SET NX PX, renewed by its owner's token). */
export class RedisLeaderElection implements LeaderElection {
  private readonly token = randomUUID();
  private leader = false;

  constructor(
    /** A client with the deployment's key prefix. */
    private readonly redis: Redis,
    private readonly ttlMs: number,
    private readonly key = 'scheduler:leader',
  ) {}

  async acquireOrRenew(): Promise<boolean> {
    if (this.leader) {
      this.leader = Number(await this.redis.eval(RENEW, 1, this.key, this.token, String(this.ttlMs))) === 1;
    }
    if (!this.leader) this.leader = (await this.redis.set(this.key, this.token, 'PX', this.ttlMs, 'NX')) === 'OK';
    return this.leader;
  }

  isLeader(): boolean {
    return this.leader;
  }

  async release(): Promise<void> {
    if (!this.leader) return;
    this.leader = false;
    // Without Redis there is nothing to release: the lease expires on its own.
    if (this.redis.status !== 'ready') return;
    await this.redis.eval(RELEASE, 1, this.key, this.token);
  }
}
