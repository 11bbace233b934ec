import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { KUBE_BUILD_HINT, kubeBinaryPaths } from '@runplane/testing';

const exec = promisify(execFile);

/** Output and exit code of the promtool `npm run k8s:build` built (a failure resolves too, for its message). */
export async function promtool(args: string[], cwd: string): Promise<{ code: number; output: string }> {
  const binary = kubeBinaryPaths().promtool;
  if (!existsSync(binary)) throw new Error(`promtool is not built (missing ${binary}). ${KUBE_BUILD_HINT}`);
  try {
    const { stdout, stderr } = await exec(binary, args, { cwd, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (err) {
    const failure = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof failure.code !== 'number') throw err;
    return { code: failure.code, output: `${failure.stdout ?? ''}${failure.stderr ?? ''}` };
  }
}
