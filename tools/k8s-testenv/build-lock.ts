import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isProcessAlive } from '@runplane/testing';

/**
 * One build at a time per cache folder (two jest runs may both find the binaries missing): the lock
 * is a folder created atomically, holding the builder's pid so a lock left by a killed build is taken over.
 */
export async function withBuildLock<T>(
  cacheRoot: string,
  log: (line: string) => void,
  work: () => Promise<T>,
): Promise<T> {
  const lock = path.join(cacheRoot, '.build.lock');
  let waiting = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(readPid(lock));
      if (!Number.isInteger(holder) || holder <= 0 || !isProcessAlive(holder)) {
        // The pid file is written right after the folder: give a starting builder a moment before taking over.
        if (waiting || holder > 0) rmSync(lock, { recursive: true, force: true });
      } else if (!waiting) {
        log(`waiting for another build of the Kubernetes test environment (pid ${holder})`);
      }
      waiting = true;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function readPid(lock: string): string {
  try {
    return readFileSync(path.join(lock, 'pid'), 'utf8');
  } catch {
    return '';
  }
}
