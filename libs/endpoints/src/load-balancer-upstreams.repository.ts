import type { DbClient, Endpoint, PodPhase } from '@runplane/db';

/** What the load balancer needs to know of an endpoint: whose it is and how it is called. */
export interface LbEndpointRow {
  id: string;
  accountId: string;
  type: Endpoint['type'];
}

/** A worker of a load-balancing endpoint as the job-router proxies to it. */
export interface LbWorkerRow {
  id: string;
  observedPhase: PodPhase;
  /** "host:port" of the worker's HTTP server (PORT); null until its workload runs. */
  serviceAddress: string | null;
  /** "host:port" of its health server (PORT_HEALTH); null until its workload runs. */
  healthAddress: string | null;
  /** The worker's HEALTH_CHECK_PATH (template and endpoint env), when set. */
  healthCheckPath: string | null;
  /** The scheduler's last word on the workload (an exit reason, "Unschedulable: ..."). */
  statusMessage: string | null;
}

function healthCheckPathOf(env: unknown): string | null {
  if (typeof env !== 'object' || env === null || Array.isArray(env)) return null;
  const path = (env as Record<string, unknown>)['HEALTH_CHECK_PATH'];
  return typeof path === 'string' && path.length > 0 ? path : null;
}

/** The endpoints and workers load-balancing requests are proxied to (read only; the scheduler writes them). */
export class LoadBalancerUpstreamsRepository {
  constructor(private readonly db: DbClient) {}

  /** The account's endpoint, or null (another account's is as unknown as a missing one). */
  findEndpoint(accountId: string, id: string): Promise<LbEndpointRow | null> {
    return this.db.endpoint.findFirst({ where: { id, accountId }, select: { id: true, accountId: true, type: true } });
  }

  /** The endpoint's workers meant to run (desired RUNNING), in any observed phase, oldest first. */
  async workers(endpointId: string): Promise<LbWorkerRow[]> {
    const rows = await this.db.pod.findMany({
      where: { endpointId, desiredStatus: 'RUNNING' },
      select: {
        id: true,
        observedPhase: true,
        serviceAddress: true,
        healthAddress: true,
        statusMessage: true,
        env: true,
      },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    return rows.map(({ env, ...row }) => ({ ...row, healthCheckPath: healthCheckPathOf(env) }));
  }
}
