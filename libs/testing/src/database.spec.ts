import { createPrismaClient, migrationsFingerprint, withDatabaseAdmin } from '@runplane/db';
import { createTestDatabase, dropStaleTestDatabases, TEMPLATE_DATABASE } from './database';

describe('test databases', () => {
  it('are migrated copies of the template, isolated from each other, and dropped on request', async () => {
    const [first, second] = await Promise.all([createTestDatabase('Isolation A!'), createTestDatabase('isolation-b')]);
    expect(first.name).toMatch(/^rp_test_[a-z0-9]+_[a-z0-9]{6}_isolation_a$/);
    expect(first.url).toContain(`/${first.name}`);
    const a = createPrismaClient(first.url);
    const b = createPrismaClient(second.url);
    try {
      await a.account.create({ data: { id: 'same-id', name: 'in a' } });
      await b.account.create({ data: { id: 'same-id', name: 'in b' } });
      expect(await a.account.findMany()).toEqual([expect.objectContaining({ name: 'in a' })]);
      expect(await b.account.findMany()).toEqual([expect.objectContaining({ name: 'in b' })]);
    } finally {
      await b.$disconnect();
    }
    await first.drop(); // while `a` is still connected: the drop disconnects it
    await second.drop();
    await a.$disconnect().catch(() => undefined);
    await withDatabaseAdmin(first.url, async (admin) => {
      expect(await admin.exists(first.name)).toBe(false);
      expect(await admin.exists(second.name)).toBe(false);
      expect(await admin.comment(TEMPLATE_DATABASE)).toBe(migrationsFingerprint());
    });
  });

  it('left behind by crashed runs are cleaned up once stale, fresh ones are kept', async () => {
    const fresh = await createTestDatabase('fresh');
    const staleName = `rp_test_${(Date.now() - 7 * 60 * 60 * 1000).toString(36)}_abcdef_crashed`;
    await withDatabaseAdmin(fresh.url, (admin) => admin.create(staleName));
    try {
      const dropped = await dropStaleTestDatabases();
      expect(dropped).toContain(staleName);
      expect(dropped).not.toContain(fresh.name);
      await withDatabaseAdmin(fresh.url, async (admin) => {
        expect(await admin.exists(staleName)).toBe(false);
        expect(await admin.exists(fresh.name)).toBe(true);
      });
    } finally {
      await fresh.drop();
    }
  });

  it('rebuild the template when the migrations it was built from changed', async () => {
    const probe = await createTestDatabase('probe');
    await withDatabaseAdmin(probe.url, (admin) => admin.setComment(TEMPLATE_DATABASE, 'built from older migrations'));
    const rebuilt = await createTestDatabase('after-rebuild');
    const db = createPrismaClient(rebuilt.url);
    try {
      await withDatabaseAdmin(probe.url, async (admin) => {
        expect(await admin.comment(TEMPLATE_DATABASE)).toBe(migrationsFingerprint());
        expect(await admin.list(`${TEMPLATE_DATABASE}_build_`)).toEqual([]);
      });
      expect(await db.pod.count()).toBe(0);
    } finally {
      await db.$disconnect();
      await Promise.all([probe.drop(), rebuilt.drop()]);
    }
  });
});
