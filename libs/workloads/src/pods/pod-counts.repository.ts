import type { DbClient } from '@runplane/db';

/** How many Pod rows are in one desired status and one observed phase (`NONE`: not observed yet). */
export interface PodStatusCount {
  desired: string;
  observed: string;
  count: number;
}

/** Counts of Pod rows for the scheduler's metrics: one grouped query per scrape, no row read. */
export class PodCountsRepository {
  constructor(private readonly db: DbClient) {}

  /** Pods (workers included) by desired status and observed phase; terminated rows count until they are deleted. */
  async byStatus(): Promise<PodStatusCount[]> {
    const groups = await this.db.pod.groupBy({ by: ['desiredStatus', 'observedPhase'], _count: { _all: true } });
    return groups.map((group) => ({
      desired: group.desiredStatus,
      observed: group.observedPhase ?? 'NONE',
      count: group._count._all,
    }));
  }

  /** Endpoints that have worker Pods meant to run, the ones whose worker states a scrape reads. */
  async workerEndpoints(): Promise<string[]> {
    const groups = await this.db.pod.groupBy({
      by: ['endpointId'],
      where: { endpointId: { not: null }, desiredStatus: 'RUNNING' },
    });
    return groups.flatMap((group) => (group.endpointId ? [group.endpointId] : []));
  }
}
