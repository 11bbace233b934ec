import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** File names inside the runner's state directory. */
export const STATE_FILES = {
  adminKey: 'admin-key',
  adminAccount: 'admin-account',
  encryptionKey: 'encryption-key',
  pids: 'pids.json',
  postgresData: 'postgres',
} as const;

/** Pids of every process the runner started, written so tests and operators can check for leftovers. */
export interface PidRecord {
  runner: number;
  apps: Record<string, number>;
  services: Record<string, number>;
  ports: Record<string, number>;
}

/** Creates the state directory (owner-only) if needed and returns its path. */
export function ensureStateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** Reads a trimmed state file, or undefined when it does not exist or is empty. */
export function readStateFile(dir: string, name: string): string | undefined {
  try {
    const value = readFileSync(join(dir, name), 'utf8').trim();
    return value === '' ? undefined : value;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Writes a state file readable by its owner only (it may hold a secret). */
export function writeSecretFile(dir: string, name: string, value: string): void {
  const path = join(dir, name);
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  // writeFileSync keeps the mode of an existing file; make sure an old, wider file is narrowed.
  chmodSync(path, 0o600);
}

/** The kept encryption key, generated on first use (64 hex chars = 32 bytes). */
export function loadOrCreateEncryptionKey(dir: string): string {
  const existing = readStateFile(dir, STATE_FILES.encryptionKey);
  if (existing !== undefined && /^[0-9a-fA-F]{64}$/.test(existing)) return existing;
  const key = randomBytes(32).toString('hex');
  writeSecretFile(dir, STATE_FILES.encryptionKey, key);
  return key;
}

/**
 * Records the pids of the runner, its apps and any server it started. The file is replaced whole (written aside, then
 * renamed over the old one): it is rewritten while the platform runs, whenever an app restarts, and `npm stop` or a
 * check for leftovers reading it at that moment must see the old record or the new one, never a file cut short.
 */
export function writePids(dir: string, record: PidRecord): void {
  const path = join(dir, STATE_FILES.pids);
  const aside = `${path}.${process.pid}.tmp`;
  writeFileSync(aside, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(aside, path);
}

/** The pid record of the last run, or undefined when there is none or it cannot be read. */
export function readPids(dir: string): PidRecord | undefined {
  const text = readStateFile(dir, STATE_FILES.pids);
  if (text === undefined) return undefined;
  try {
    const record = JSON.parse(text) as Partial<PidRecord>;
    if (typeof record.runner !== 'number') return undefined;
    return {
      runner: record.runner,
      apps: record.apps ?? {},
      services: record.services ?? {},
      ports: record.ports ?? {},
    };
  } catch {
    // A file cut short by a crash: nothing can be learnt from it.
    return undefined;
  }
}
