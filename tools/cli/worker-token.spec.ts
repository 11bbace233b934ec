import { createWorkerTokensService, type WorkerTokenSummary, WorkerTokenCache } from '@runplane/accounts';
import { type DatabaseClient, newId } from '@runplane/db';
import { createTestStores, type TestStores } from '@runplane/testing';
import { type CliResult, runCli } from './test/run-cli';

/** The listing's JSON with its dates as strings. */
type ListedToken = Omit<WorkerTokenSummary, 'createdAt' | 'revokedAt'> & {
  createdAt: string;
  revokedAt: string | null;
};

describe('runplane CLI worker-token commands', () => {
  let stores: TestStores;
  let db: DatabaseClient;

  beforeAll(async () => {
    stores = await createTestStores('cli-worker-token');
    db = stores.db;
  });

  afterAll(() => stores.close());

  const cli = (...args: string[]): Promise<CliResult> => runCli(stores.database.url, args);

  async function endpoint(): Promise<string> {
    const account = await db.account.create({ data: { id: newId(), name: 'cli-worker-token' } });
    const template = await db.template.create({
      data: {
        id: newId(),
        accountId: account.id,
        name: `t-${newId()}`,
        imageName: 'runplane/echo:1',
        isServerless: true,
      },
    });
    const row = await db.endpoint.create({
      data: { id: newId(), accountId: account.id, name: `ep-${newId()}`, templateId: template.id },
    });
    return row.id;
  }

  async function create(endpointId: string, workerId: string): Promise<string> {
    const result = await cli('worker-token', 'create', '--endpoint', endpointId, '--worker', workerId);
    expect(result.code).toBe(0);
    return result.stdout.trim();
  }

  async function listed(endpointId: string): Promise<ListedToken[]> {
    const result = await cli('worker-token', 'list', '--endpoint', endpointId, '--json');
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as ListedToken[];
  }

  /** A service on a cache of its own: what a job-router that never saw the tokens would decide. */
  const freshService = () => createWorkerTokensService(db, new WorkerTokenCache());

  it('lists the tokens of an endpoint (never the tokens), then revokes one by id', async () => {
    const endpointId = await endpoint();
    const first = await create(endpointId, 'w-1');
    const second = await create(endpointId, 'w-2');
    const tokens = await listed(endpointId);
    expect(tokens).toEqual([
      { id: expect.any(String), endpointId, workerId: 'w-1', createdAt: expect.any(String), revokedAt: null },
      { id: expect.any(String), endpointId, workerId: 'w-2', createdAt: expect.any(String), revokedAt: null },
    ]);
    const table = await cli('worker-token', 'list', '--endpoint', endpointId);
    expect(table.stdout).toMatch(/^ID\s+WORKER\s+STATE\s+CREATED\s+REVOKED\n/);
    expect(table.stdout).not.toContain(first);
    expect(table.stdout.match(/ live /g)).toHaveLength(2);

    const tokenId = tokens[0]!.id;
    expect(await cli('worker-token', 'revoke', tokenId)).toMatchObject({ code: 0, stdout: `${tokenId} revoked\n` });
    expect(await freshService().authenticate(first)).toBeNull();
    expect(await freshService().authenticate(second)).toMatchObject({ workerId: 'w-2' });
    const after = await listed(endpointId);
    expect(after[0]).toMatchObject({ id: tokenId, revokedAt: expect.any(String) });
    expect(after[1]).toMatchObject({ workerId: 'w-2', revokedAt: null });
    // Revoking again changes nothing: the first revocation time stays.
    expect(await cli('worker-token', 'revoke', tokenId)).toMatchObject({ code: 0 });
    expect((await listed(endpointId))[0]?.revokedAt).toBe(after[0]?.revokedAt);
  });

  it('revokes every live token of a worker with --endpoint and --worker', async () => {
    const endpointId = await endpoint();
    const tokens = [await create(endpointId, 'w-a'), await create(endpointId, 'w-a'), await create(endpointId, 'w-b')];
    const revoked = await cli('worker-token', 'revoke', '--endpoint', endpointId, '--worker', 'w-a');
    expect(revoked).toMatchObject({ code: 0, stdout: `revoked 2 tokens of worker w-a of endpoint ${endpointId}\n` });
    const service = freshService();
    expect(await Promise.all(tokens.map((token) => service.authenticate(token)))).toEqual([
      null,
      null,
      expect.objectContaining({ workerId: 'w-b' }),
    ]);
    const again = await cli('worker-token', 'revoke', '--endpoint', endpointId, '--worker', 'w-a');
    expect(again.stdout).toBe(`revoked 0 tokens of worker w-a of endpoint ${endpointId}\n`);
  });

  it('refuses unknown endpoints and tokens, and ambiguous or incomplete targets, with a one-line error', async () => {
    expect(await cli('worker-token', 'list', '--endpoint', 'missing')).toMatchObject({
      code: 1,
      stderr: 'error: Endpoint not found\n',
    });
    expect(await cli('worker-token', 'revoke', 'missing')).toMatchObject({
      code: 1,
      stderr: 'error: Worker token not found\n',
    });
    const unknownEndpoint = await cli('worker-token', 'revoke', '--endpoint', 'missing', '--worker', 'w');
    expect(unknownEndpoint).toMatchObject({ code: 1, stderr: 'error: Endpoint not found\n' });
    const both = await cli('worker-token', 'revoke', 'some-id', '--endpoint', 'e', '--worker', 'w');
    expect(both).toMatchObject({ code: 1, stderr: 'error: give a token id, or --endpoint and --worker, not both\n' });
    const half = await cli('worker-token', 'revoke', '--endpoint', 'e');
    expect(half).toMatchObject({ code: 1, stderr: 'error: give a token id, or both --endpoint and --worker\n' });
  });
});
