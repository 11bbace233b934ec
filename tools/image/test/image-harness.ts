import { execFile } from 'node:child_process';
import { chownSync, lstatSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { compileFile } from '../../build/build';
import type { AssembledImage } from '../assemble';

const REPO_ROOT = resolve(__dirname, '..', '..', '..');

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
    PATH: [dirname(image.node), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    ...image.env,
    ...env,
  };
  return new Promise((resolve) => {
    execFile(
      image.node,
      args,
      { cwd: image.appDir, env: fullEnv, timeout: 180_000, ...(user ?? {}) },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * The echo worker (examples/echo-worker) compiled to `worker.js` in a new directory of its own, owned by `user`
 * when given: it runs on the image's Node with the image's worker SDK (dist/libs/worker-sdk) and production
 * dependencies, from a directory the image user can reach. Returns the directory.
 */
export async function echoWorkerDir(image: AssembledImage, user?: { uid: number; gid: number }): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'runplane-image-worker-'));
  const worker = join(dir, 'worker.js');
  await compileFile(join(REPO_ROOT, 'examples', 'echo-worker', 'worker.ts'), worker, join(image.appDir, 'dist'));
  if (user !== undefined) for (const path of [dir, worker, `${worker}.map`]) chownSync(path, user.uid, user.gid);
  return dir;
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
