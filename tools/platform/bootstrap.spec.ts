import { createAccountsServices } from '@runplane/accounts';
import type { DatabaseClient } from '@runplane/db';
import { createTestStores, type TestStores } from '@runplane/testing';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureAdminKey } from './bootstrap';
import { loadOrCreateEncryptionKey, readStateFile } from './state';

describe('ensureAdminKey', () => {
  let stores: TestStores;
  let db: DatabaseClient;
  let stateDir: string;

  beforeAll(async () => {
    stores = await createTestStores('bootstrap');
    db = stores.db;
  });

  beforeEach(() => {
    stateDir = mkdtempSync(join(tmpdir(), 'runplane-state-'));
  });

  afterEach(() => rmSync(stateDir, { recursive: true, force: true }));

  afterAll(() => stores.close());

  it('creates an admin account and an ALL key on first start, kept owner-only', async () => {
    const services = createAccountsServices(db);
    const admin = await ensureAdminKey(stateDir, services);
    expect(admin.created).toBe(true);
    expect(readStateFile(stateDir, 'admin-key')).toBe(admin.secret);
    expect(statSync(join(stateDir, 'admin-key')).mode & 0o777).toBe(0o600);
    expect(await services.apiKeys.authenticate(admin.secret)).toMatchObject({
      accountId: admin.accountId,
      scope: 'ALL',
    });
    expect(await services.accounts.findById(admin.accountId)).toMatchObject({ name: 'admin' });
  });

  it('reuses the kept key while it authenticates', async () => {
    const services = createAccountsServices(db);
    const first = await ensureAdminKey(stateDir, services);
    const second = await ensureAdminKey(stateDir, services);
    expect(second).toEqual({ ...first, created: false });
    expect(await services.apiKeys.list(first.accountId)).toHaveLength(1);
  });

  it('makes a new key on the same account when the kept one was disabled', async () => {
    const services = createAccountsServices(db);
    const first = await ensureAdminKey(stateDir, services);
    const [key] = await services.apiKeys.list(first.accountId);
    await services.apiKeys.update(first.accountId, key?.id ?? '', { disabled: true });

    const second = await ensureAdminKey(stateDir, services);
    expect(second).toMatchObject({ created: true, accountId: first.accountId });
    expect(second.secret).not.toBe(first.secret);
    expect(readStateFile(stateDir, 'admin-key')).toBe(second.secret);
    expect(await services.apiKeys.authenticate(second.secret)).not.toBeNull();
  });

  it('starts over with a new account when the kept one no longer exists (a reset database)', async () => {
    writeFileSync(join(stateDir, 'admin-key'), 'rpl_not-a-key-of-this-database\n');
    writeFileSync(join(stateDir, 'admin-account'), 'acc-gone\n');
    const services = createAccountsServices(db);
    const admin = await ensureAdminKey(stateDir, services);
    expect(admin.created).toBe(true);
    expect(admin.accountId).not.toBe('acc-gone');
    expect(readStateFile(stateDir, 'admin-account')).toBe(admin.accountId);
  });
});

describe('loadOrCreateEncryptionKey', () => {
  it('generates a 32-byte hex key once and keeps it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'runplane-state-'));
    try {
      const key = loadOrCreateEncryptionKey(dir);
      expect(key).toMatch(/^[0-9a-f]{64}$/);
      expect(loadOrCreateEncryptionKey(dir)).toBe(key);
      expect(statSync(join(dir, 'encryption-key')).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
