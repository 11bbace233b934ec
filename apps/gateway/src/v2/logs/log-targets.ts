import { NotFoundError } from '@runplane/contracts';
import type { PodRepository } from '@runplane/workloads';

/** Which workload a log stream reads, after checking that the caller's account owns it. */
export class LogTargets {
  constructor(private readonly pods: PodRepository) {}

  /** A Pod of the account (serverless workers are streamed through their endpoint). */
  async pod(accountId: string, podId: string): Promise<string> {
    const row = await this.pods.findById(accountId, podId);
    if (!row || row.endpointId !== null) throw new NotFoundError('Pod');
    return row.id;
  }

  /** A worker of one of the account's endpoints. */
  async worker(accountId: string, endpointId: string, workerId: string): Promise<string> {
    const row = await this.pods.findById(accountId, workerId);
    if (!row || row.endpointId !== endpointId) throw new NotFoundError('Worker');
    return row.id;
  }
}
