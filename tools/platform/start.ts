/**
 * `npm start`: runs the whole platform on this machine. The environment is read here, once.
 * See README.md for the variables.
 */
import { CONFIG_ERROR_EXIT_CODE } from '@runplane/config';
import { resolve } from 'node:path';
import { readRunnerConfig, type RunnerConfig, RunnerConfigError } from './config';
import { PlatformRunner } from './runner';
import { ServiceUnavailableError } from './services';

const REPO_ROOT = resolve(__dirname, '..', '..');

function loadConfig(): RunnerConfig {
  try {
    return readRunnerConfig(process.env, REPO_ROOT);
  } catch (error) {
    if (!(error instanceof RunnerConfigError)) throw error;
    process.stderr.write(`runplane: ${error.message}\n`);
    process.exit(CONFIG_ERROR_EXIT_CODE);
  }
}

function describe(error: unknown): string {
  if (error instanceof ServiceUnavailableError) return error.message;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

async function main(): Promise<void> {
  const runner = new PlatformRunner(loadConfig(), { stdout: process.stdout, stderr: process.stderr });
  const exit = (code: number): never => process.exit(code);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => void runner.shutdown(0, `received ${signal}`));
  }
  try {
    await runner.run();
  } catch (error) {
    if (!runner.isStopping()) {
      runner.log(`start-up failed: ${describe(error)}`);
      void runner.shutdown(1, 'start-up failed');
    }
  }
  // Whatever stops the platform (a signal, a crashed app, a failed start) decides the exit code.
  exit(await runner.whenStopped());
}

void main();
