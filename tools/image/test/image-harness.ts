import { execFile } from 'node:child_process';
import { lstatSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { AssembledImage } from '../assemble';

/** How a one-off command in the image ended. */
export interface ImageRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node <args>` in the image's WORKDIR with the image's ENV plus `env` only (the caller's environment stays out). */
export function runInImage(
  image: AssembledImage,
  args: string[],
  env: Record<string, string>,
  user?: { uid: number; gid: number },
): Promise<ImageRun> {
  const fullEnv = {
    PATH: [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    ...image.env,
    ...env,
  };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: image.appDir, env: fullEnv, timeout: 180_000, ...(user ?? {}) },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Every path under `dir` with its size and modification time: equal snapshots mean nothing was written. */
export function treeSnapshot(dir: string): Map<string, string> {
  const snapshot = new Map<string, string>();
  const walk = (current: string): void => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      const stat = lstatSync(path);
      snapshot.set(relative(dir, path), `${stat.size} ${stat.mtimeMs}`);
      if (entry.isDirectory()) walk(path);
    }
  };
  walk(dir);
  return snapshot;
}
