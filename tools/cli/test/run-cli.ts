import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

const REPO_ROOT = resolve(__dirname, '..', '..', '..');
// The CLI is spawned like an operator runs it; it needs PATH and HOME from the caller.
const INHERITED_ENV = { ...process.env };

/** How a CLI run ended. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `runplane <args>` from the repository root against the database at `databaseUrl`, with the built-in catalog. */
export function runCli(databaseUrl: string, args: string[]): Promise<CliResult> {
  const entry = ['-r', '@swc-node/register', 'tools/cli/runplane.ts', ...args];
  const env = { ...INHERITED_ENV, DATABASE_URL: databaseUrl, RUNPLANE_CATALOG_FILE: undefined };
  return new Promise((done) => {
    execFile(process.execPath, entry, { cwd: REPO_ROOT, env }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      done({ code, stdout, stderr });
    });
  });
}
