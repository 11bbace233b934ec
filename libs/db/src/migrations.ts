import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';

/** The repository root, found from this file's own location so callers may run from any cwd. */
export function repositoryRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'prisma', 'schema.prisma'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find prisma/schema.prisma above ${__dirname}`);
    dir = parent;
  }
  return dir;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)]))
    .sort();
}

/** sha-256 over every file in prisma/migrations: changes whenever a migration is added or edited. */
export function migrationsFingerprint(): string {
  const dir = join(repositoryRoot(), 'prisma', 'migrations');
  const hash = createHash('sha256');
  for (const file of listFiles(dir))
    hash.update(relative(dir, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

/** Options for {@link applyMigrations}. */
export interface ApplyMigrationsOptions {
  /** Kill `prisma migrate deploy` after this long (default 120000 ms). */
  timeoutMs?: number;
}

/**
 * Applies pending migrations to the database (`prisma migrate deploy` through Runplane's offline
 * schema engine, in a child process). A no-op when the database is up to date.
 */
export function applyMigrations(databaseUrl: string, options: ApplyMigrationsOptions = {}): Promise<void> {
  const root = repositoryRoot();
  const bin = join(root, 'node_modules', '.bin');
  // A closed environment: the child must not pick up another DATABASE_URL, and the engine's
  // `#!/usr/bin/env node` must find the repository's Node first.
  const env = {
    PATH: [bin, dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(delimiter),
    HOME: homedir(),
    DATABASE_URL: databaseUrl,
    PRISMA_SCHEMA_ENGINE_BINARY: join(root, 'tools', 'prisma-schema-engine', 'schema-engine.mjs'),
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  };
  const cli = join(root, 'node_modules', 'prisma', 'build', 'index.js');
  const args = [cli, 'migrate', 'deploy', '--config', join(root, 'prisma.config.ts')];
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      { cwd: root, env, timeout: options.timeoutMs ?? 120_000 },
      (err, stdout, stderr) => {
        if (err === null) return resolve();
        const output = `${stdout}\n${stderr}`.trim();
        reject(new Error(`prisma migrate deploy failed (${err.message.split('\n')[0]}):\n${output}`));
      },
    );
  });
}
