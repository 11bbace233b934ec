// Revoking a worker token shuts its worker out of the worker protocol: at once when the revocation goes through
// this process (the job-router's cache forgets the worker), and once the credential cache lets go elsewhere (its
// 5 s window is shown with a fake clock in worker-token-cache.spec.ts; here the cache's invalidation stands for it).
import { createWorkerTokensService, processWorkerTokenCache, WorkerTokenCache } from '@runplane/accounts';
import { bearer, type JobRouterHarness, raw, startJobRouter } from './harness';

describe('job-router worker-token revocation', () => {
  let h: JobRouterHarness;
  let endpointId: string;
  let client: Record<string, string>;

  beforeAll(async () => {
    h = await startJobRouter('jr-worker-token-revoke');
    const { accountId, secret } = await h.accountWithKey();
    endpointId = await h.endpoint(accountId);
    client = bearer(secret);
  });
  afterAll(() => h.close());

  const ping = (workerId: string, token: string) =>
    h.inject({ method: 'GET', url: `/v2/${endpointId}/ping/${workerId}`, headers: raw(token) });

  /** A token the router has already accepted (and so cached), with its id. */
  async function acceptedToken(workerId: string): Promise<{ token: string; tokenId: string }> {
    const token = await h.workerToken(endpointId, workerId);
    expect((await ping(workerId, token)).statusCode).toBe(200);
    const row = await h.db.workerToken.findFirstOrThrow({
      where: { endpointId, workerId },
      orderBy: { createdAt: 'desc' },
    });
    return { token, tokenId: row.id };
  }

  it('answers 401 at once after a revocation by token id in this process', async () => {
    const { token, tokenId } = await acceptedToken('w-by-id');
    // The same process: the service shares the router's cache, as the job-router's own callers do.
    await createWorkerTokensService(h.db).revokeToken(tokenId);
    const refused = await ping('w-by-id', token);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ error: 'Invalid worker token' });
  });

  it('answers 401 at once on every worker route after revoking a worker, even with a job in hand', async () => {
    const { token } = await acceptedToken('w-holder');
    const submitted = await h.inject({
      method: 'POST',
      url: `/v2/${endpointId}/run`,
      headers: client,
      payload: { input: { n: 1 } },
    });
    const jobId = (submitted.json() as { id: string }).id;
    const taken = await h.inject({ method: 'GET', url: `/v2/${endpointId}/job-take/w-holder`, headers: raw(token) });
    expect(taken.json()).toMatchObject({ id: jobId });
    expect(await createWorkerTokensService(h.db).revokeWorker(endpointId, 'w-holder')).toBe(1);
    const done = await h.inject({
      method: 'POST',
      url: `/v2/${endpointId}/job-done/w-holder/${jobId}?isStream=false`,
      headers: raw(token),
      payload: { output: 'late' },
    });
    expect(done.statusCode).toBe(401);
    expect((await ping('w-holder', token)).statusCode).toBe(401);
    const take = await h.inject({ method: 'GET', url: `/v2/${endpointId}/job-take/w-holder`, headers: raw(token) });
    expect(take.statusCode).toBe(401);
    const status = await h.inject({ method: 'GET', url: `/v2/${endpointId}/status/${jobId}`, headers: client });
    expect(status.json()).toMatchObject({ status: 'IN_PROGRESS' });
  });

  it('answers 401 after a revocation in another process once the cached check is let go', async () => {
    const { token } = await acceptedToken('w-elsewhere');
    const other = await acceptedToken('w-bystander');
    // Another process has a cache of its own: the revocation reaches this router's cache only by expiry.
    await createWorkerTokensService(h.db, new WorkerTokenCache()).revokeWorker(endpointId, 'w-elsewhere');
    const row = await h.db.workerToken.findFirstOrThrow({ where: { endpointId, workerId: 'w-elsewhere' } });
    processWorkerTokenCache.forget({ accountId: row.accountId, endpointId, workerId: 'w-elsewhere' });
    expect((await ping('w-elsewhere', token)).statusCode).toBe(401);
    expect((await ping('w-bystander', other.token)).statusCode).toBe(200);
  });

  it('answers 401 at once for a token revoked elsewhere before this router ever checked it', async () => {
    const token = await h.workerToken(endpointId, 'w-fresh');
    await createWorkerTokensService(h.db, new WorkerTokenCache()).revokeWorker(endpointId, 'w-fresh');
    expect((await ping('w-fresh', token)).statusCode).toBe(401);
  });
});
