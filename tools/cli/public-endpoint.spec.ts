import type { PublicEndpointDto, PublicModelList } from '@runplane/contracts';
import { type DatabaseClient, newId } from '@runplane/db';
import { createTestStores, type TestStores } from '@runplane/testing';
import { type CliResult, runCli } from './test/run-cli';

describe('runplane public-endpoint', () => {
  let stores: TestStores;
  let db: DatabaseClient;
  let accountId: string;
  let endpointId: string;

  beforeAll(async () => {
    stores = await createTestStores('cli-public-endpoint');
    db = stores.db;
    accountId = (await db.account.create({ data: { id: newId(), name: 'operator' } })).id;
    const template = await db.template.create({
      data: { id: newId(), accountId, name: 'echo', imageName: 'runplane/echo:1', isServerless: true },
    });
    endpointId = (await db.endpoint.create({ data: { id: newId(), accountId, name: 'echo', templateId: template.id } }))
      .id;
  });
  afterAll(() => stores.close());

  const cli = (...args: string[]): Promise<CliResult> => runCli(stores.database.url, ['public-endpoint', ...args]);

  it('publishes, lists, updates and unpublishes a model', async () => {
    const published = await cli(
      'publish',
      '--account',
      accountId,
      '--endpoint',
      endpointId,
      '--name',
      'echo-cli',
      '--description',
      'Echoes',
      '--input',
      '{"type":"object"}',
      '--price',
      '0.01',
    );
    expect(published).toMatchObject({ code: 0 });
    expect(JSON.parse(published.stdout)).toMatchObject({
      name: 'echo-cli',
      endpointId,
      description: 'Echoes',
      input: { type: 'object' },
      output: {},
      pricePerRequest: 0.01,
    });

    const table = await cli('list', '--account', accountId);
    expect(table.stdout).toMatch(/^NAME\s+ENDPOINT\s+PRICE\s+DESCRIPTION\n/);
    expect(table.stdout).toContain(`echo-cli  ${endpointId}  $0.01/request  Echoes`);
    const models = JSON.parse((await cli('list')).stdout) as PublicModelList;
    expect(models.models.map((m) => m.name)).toEqual(['echo-cli']);
    expect(JSON.stringify(models)).not.toContain(endpointId);

    const updated = await cli('update', 'echo-cli', '--account', accountId, '--price', 'none');
    expect((JSON.parse(updated.stdout) as PublicEndpointDto).pricePerRequest).toBeNull();

    expect(await cli('unpublish', 'echo-cli', '--account', accountId)).toMatchObject({
      code: 0,
      stdout: 'echo-cli unpublished\n',
    });
    expect(await db.publicEndpoint.count()).toBe(0);
  });

  it('reports bad input and refusals in one line', async () => {
    const base = ['publish', '--account', accountId, '--endpoint', endpointId];
    expect(await cli(...base, '--name', 'Bad Name')).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^error: name: /),
    });
    expect(await cli(...base, '--name', 'pods')).toMatchObject({
      code: 1,
      stderr: 'error: name: "pods" is a reserved path segment\n',
    });
    expect(await cli(...base, '--name', 'ok', '--input', '{nope')).toMatchObject({
      code: 1,
      stderr: 'error: --input: not valid JSON\n',
    });
    expect(await cli('unpublish', 'missing', '--account', accountId)).toMatchObject({
      code: 1,
      stderr: 'error: Public endpoint not found\n',
    });
  });
});
