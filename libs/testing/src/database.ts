import {
  applyMigrations,
  type DatabaseAdmin,
  migrationsFingerprint,
  newId,
  withDatabaseAdmin,
  withDatabaseName,
} from '@runplane/db';

// The one place test code reads the environment: the server test databases live on.
const SERVER_URL = process.env['TEST_DATABASE_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

/** Database every test database is cloned from: migrated, otherwise empty. */
export const TEMPLATE_DATABASE = 'runplane_test_template';
const TEST_DATABASE_PREFIX = 'rp_test_';
// Advisory lock guarding the template: rebuilds hold it exclusively, clones shared, so parallel
// jest runs (several checkouts, one server) never clone a template that is being replaced.
const TEMPLATE_LOCK = 0x52_50_4c_54;
// Test databases older than this are leftovers of crashed runs.
const STALE_AFTER_MS = 6 * 60 * 60 * 1000;

/** A database of one's own for a test file. */
export interface TestDatabase {
  /** postgres:// URL of the database. */
  url: string;
  name: string;
  /** Drops the database, disconnecting any client still attached. */
  drop(): Promise<void>;
}

async function rebuildTemplate(admin: DatabaseAdmin, fingerprint: string): Promise<void> {
  const build = `${TEMPLATE_DATABASE}_build_${newId(8)}`;
  await admin.create(build);
  try {
    await applyMigrations(withDatabaseName(SERVER_URL, build));
    await admin.setComment(build, fingerprint);
    await admin.drop(TEMPLATE_DATABASE);
    await admin.rename(build, TEMPLATE_DATABASE);
  } catch (err) {
    await admin.drop(build);
    throw err;
  }
}

// Rebuilds the template unless it already carries these migrations (checked again under the lock:
// a parallel run may have just rebuilt it).
async function ensureTemplate(admin: DatabaseAdmin, fingerprint: string): Promise<void> {
  if ((await admin.comment(TEMPLATE_DATABASE)) === fingerprint) return;
  await admin.withLock(TEMPLATE_LOCK, 'exclusive', async () => {
    if ((await admin.comment(TEMPLATE_DATABASE)) !== fingerprint) await rebuildTemplate(admin, fingerprint);
  });
}

/**
 * Makes sure the template database carries the current migrations (keyed by a hash of
 * prisma/migrations); rebuilds it when they changed. Runs once per jest run (global setup).
 */
export async function prepareTemplateDatabase(): Promise<void> {
  const fingerprint = migrationsFingerprint();
  await withDatabaseAdmin(SERVER_URL, (admin) => ensureTemplate(admin, fingerprint));
}

function databaseName(label: string): string {
  const slug = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')
    .slice(0, 30);
  return `${TEST_DATABASE_PREFIX}${Date.now().toString(36)}_${newId(6)}_${slug}`;
}

function createdAt(name: string): number {
  return parseInt(name.slice(TEST_DATABASE_PREFIX.length).split('_')[0] ?? '', 36);
}

/** Drops test databases left behind by runs that crashed hours ago, and half-built templates. */
export async function dropStaleTestDatabases(now = Date.now()): Promise<string[]> {
  return withDatabaseAdmin(SERVER_URL, async (admin) => {
    const stale = (await admin.list(TEST_DATABASE_PREFIX)).filter((name) => now - createdAt(name) > STALE_AFTER_MS);
    // Half-built templates of crashed builds; no build runs while we hold the exclusive lock.
    await admin.withLock(TEMPLATE_LOCK, 'exclusive', async () =>
      stale.push(...(await admin.list(`${TEMPLATE_DATABASE}_build_`))),
    );
    for (const name of stale) await admin.drop(name);
    return stale;
  });
}

/**
 * Creates a fresh, migrated database for one test file (a copy of the template, ~100 ms).
 * `label` only makes the name recognisable. Call `drop()` in afterAll.
 */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = databaseName(label);
  const fingerprint = migrationsFingerprint();
  await withDatabaseAdmin(SERVER_URL, async (admin) => {
    // Also covers runs without the global setup (a file run on its own, another jest config).
    for (let attempt = 0; attempt < 3; attempt++) {
      await ensureTemplate(admin, fingerprint);
      const cloned = await admin.withLock(TEMPLATE_LOCK, 'shared', async () => {
        if ((await admin.comment(TEMPLATE_DATABASE)) !== fingerprint) return false;
        await admin.create(name, { template: TEMPLATE_DATABASE });
        return true;
      });
      if (cloned) return;
    }
    throw new Error(
      `template database ${TEMPLATE_DATABASE} keeps changing; is another checkout with other migrations testing?`,
    );
  });
  return {
    url: withDatabaseName(SERVER_URL, name),
    name,
    drop: () => withDatabaseAdmin(SERVER_URL, (admin) => admin.drop(name)),
  };
}
