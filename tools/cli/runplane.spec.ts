import { createAccountsServices } from '@runplane/accounts';
import type { AccountDto } from '@runplane/accounts';
import type { ApiKeyDto } from '@runplane/contracts';
import type { DatabaseClient } from '@runplane/db';
import { createTestStores, type TestStores } from '@runplane/testing';
import { type CliResult, runCli } from './test/run-cli';

describe('runplane CLI', () => {
  let stores: TestStores;
  let db: DatabaseClient;

  beforeAll(async () => {
    stores = await createTestStores('cli');
    db = stores.db;
  });

  afterAll(() => stores.close());

  const cli = (...args: string[]): Promise<CliResult> => runCli(stores.database.url, args);

  async function createAccount(name: string): Promise<string> {
    const result = await cli('account', 'create', '--name', name);
    expect(result).toMatchObject({ code: 0 });
    return result.stdout.trim();
  }

  it('applies migrations idempotently', async () => {
    const result = await cli('migrate');
    expect(result).toMatchObject({ code: 0, stdout: 'migrations applied\n' });
  });

  it('creates and lists accounts', async () => {
    const id = await createAccount('acme');
    const row = await createAccountsServices(db).accounts.findById(id);
    expect(row).toMatchObject({ id, name: 'acme' });

    const json = await cli('account', 'list', '--json');
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as AccountDto[]).map((a) => a.id)).toContain(id);
    const table = await cli('account', 'list');
    expect(table.stdout).toMatch(/^ID\s+NAME\s+CREATED\n/);
    expect(table.stdout).toContain(`${id}  acme`);
  });

  it('creates a key whose secret is printed once and authenticates with its scope', async () => {
    const account = await createAccount('keys');
    const created = await cli(
      'apikey',
      'create',
      '--account',
      account,
      '--name',
      'ci',
      '--scope',
      'RESTRICTED',
      '--endpoint',
      'ep-one',
      '--endpoint',
      'ep-two',
    );
    expect(created.code).toBe(0);
    const secret = created.stdout.trim();
    expect(secret).toMatch(/^rpl_/);
    const principal = await createAccountsServices(db).apiKeys.authenticate(secret);
    expect(principal).toMatchObject({
      accountId: account,
      scope: 'RESTRICTED',
      allowedEndpointIds: ['ep-one', 'ep-two'],
    });

    const listed = await cli('apikey', 'list', '--account', account, '--json');
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(secret);
    const keys = JSON.parse(listed.stdout) as ApiKeyDto[];
    expect(keys).toEqual([expect.objectContaining({ name: 'ci', scope: 'RESTRICTED', disabled: false })]);
    expect(secret.startsWith(keys[0]?.prefix ?? '-')).toBe(true);
  });

  it('disables and re-enables a key by id alone', async () => {
    const account = await createAccount('toggle');
    const secret = (await cli('apikey', 'create', '--account', account, '--name', 'temp')).stdout.trim();
    const { apiKeys } = createAccountsServices(db);
    const [key] = await apiKeys.list(account);
    if (key === undefined) throw new Error('key not created');
    expect(key.scope).toBe('ALL');

    expect(await cli('apikey', 'disable', key.id)).toMatchObject({ code: 0, stdout: `${key.id} disabled\n` });
    expect(await apiKeys.authenticate(secret)).toBeNull();
    expect(await cli('apikey', 'enable', key.id, '--account', account)).toMatchObject({ code: 0 });
    expect(await apiKeys.authenticate(secret)).toMatchObject({ apiKeyId: key.id });
  });

  it('refuses unknown accounts, keys and scopes with a one-line error', async () => {
    const noAccount = await cli('apikey', 'create', '--account', 'missing', '--name', 'x');
    expect(noAccount).toMatchObject({ code: 1, stdout: '', stderr: 'error: account missing not found\n' });
    const noKey = await cli('apikey', 'disable', 'missing-key');
    expect(noKey).toMatchObject({ code: 1, stderr: 'error: API key missing-key not found\n' });
    const badScope = await cli('apikey', 'create', '--account', 'a', '--name', 'x', '--scope', 'ROOT');
    expect(badScope.code).not.toBe(0);
    expect(badScope.stderr).toContain("option '--scope <scope>' argument 'ROOT' is invalid");
    const mixed = await cli(
      'apikey',
      'create',
      '--account',
      await createAccount('m'),
      '--name',
      'x',
      '--endpoint',
      'ep',
    );
    expect(mixed).toMatchObject({ code: 1, stderr: 'error: allowedEndpointIds: only allowed with scope RESTRICTED\n' });
  });

  it('seeds the catalog', async () => {
    const result = await cli('seed');
    expect(result).toMatchObject({ code: 0, stdout: 'catalog seeded\n' });
    expect(await db.gpuType.count()).toBeGreaterThan(0);
    expect(await db.dataCenter.count()).toBeGreaterThan(0);
  });
});
