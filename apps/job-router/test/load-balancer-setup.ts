// Shared setup of the load-balancing specs: a job-router listening on a real port with RUNPLANE_LB_DOMAIN, endpoints
// of type LOAD_BALANCER and worker Pod rows written as the scheduler writes them once a worker's workload runs.
import { type ClientRequest, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newId } from '@runplane/db';
import { bearer, type JobRouterHarness, startJobRouter } from './harness';
import type { LbWorker } from './load-balancer-worker';

/** The load-balancing domain of the specs: endpoint `x` is the host `x.lb.test`. */
export const LB_DOMAIN = 'lb.test';

/** A job-router for one spec file, with a port for real HTTP and WebSocket clients. */
export interface LbHarness {
  h: JobRouterHarness;
  port: number;
  /** A LOAD_BALANCER endpoint of the account. */
  endpoint(accountId: string): Promise<string>;
  /** A worker Pod row of the endpoint, RUNNING at the worker's address unless `fields` say otherwise. */
  addWorker(endpointId: string, worker: LbWorker | null, fields?: Record<string, unknown>): Promise<string>;
}

/** Starts the job-router with the load balancer on (fast refresh), `env` on top. */
export async function startLbHarness(label: string, env: Record<string, string> = {}): Promise<LbHarness> {
  const h = await startJobRouter(label, { RUNPLANE_LB_DOMAIN: LB_DOMAIN, LB_REFRESH_INTERVAL_MS: '50', ...env });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (h.app.getHttpServer().address() as AddressInfo).port;
  return {
    h,
    port,
    async endpoint(accountId) {
      const id = await h.endpoint(accountId);
      await h.db.endpoint.update({ where: { id }, data: { type: 'LOAD_BALANCER' } });
      return id;
    },
    async addWorker(endpointId, worker, fields = {}) {
      const endpoint = await h.db.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
      const id = newId();
      await h.db.pod.create({
        data: {
          id,
          accountId: endpoint.accountId,
          endpointId,
          image: 'runplane/lb-worker:1',
          observedPhase: 'RUNNING',
          serviceAddress: worker?.address ?? null,
          healthAddress: worker?.address ?? null,
          ...fields,
        },
      });
      return id;
    },
  };
}

/** The Host of an endpoint's load-balancing URL. */
export const lbHost = (endpointId: string): string => `${endpointId}.${LB_DOMAIN}`;

/** Opens a chunked `POST /upload` to the endpoint through the job-router with `secret`'s key, for the spec to write. */
export function chunkedUpload(lb: LbHarness, secret: string, endpointId: string): ClientRequest {
  return httpRequest({
    host: '127.0.0.1',
    port: lb.port,
    method: 'POST',
    path: '/upload',
    headers: { ...bearer(secret), host: lbHost(endpointId), 'transfer-encoding': 'chunked' },
  });
}
