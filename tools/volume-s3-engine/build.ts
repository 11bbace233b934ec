import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { engineBinaryPath, ENGINE_VERSION } from '@runplane/volume-buckets';

const exec = promisify(execFile);

/** The Go consumer module that pins versitygw (go.mod and go.sum are committed). */
export const ENGINE_MODULE_DIR = path.join(__dirname, 'go');
const ENGINE_PACKAGE = 'github.com/versity/versitygw/cmd/versitygw';

/** The Go toolchain: $GO, else /usr/local/go/bin/go, else `go` on PATH. */
function goBinary(env: NodeJS.ProcessEnv): string {
  const configured = env['GO'];
  if (configured !== undefined && configured !== '') return configured;
  return existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : 'go';
}

/** What `versitygw --version` prints for the pinned build (stamped at link time, as versitygw's Makefile does). */
export const VERSION_LINE = `Version  : ${ENGINE_VERSION}`;

async function isUpToDate(binary: string): Promise<boolean> {
  if (!existsSync(binary)) return false;
  const { stdout } = await exec(binary, ['--version']).catch(() => ({ stdout: '' }));
  return stdout.includes(VERSION_LINE);
}

/**
 * Builds versitygw into the cache (`$RUNPLANE_S3_ENGINE_CACHE` or ~/.cache/runplane/s3-engine) unless the cached
 * binary already reports the pinned version; the build goes to a temporary file first, so an interrupted build never
 * looks complete. Answers whether it built.
 */
export async function ensureEngineBinary(env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const binary = engineBinaryPath(env);
  if (await isUpToDate(binary)) return false;
  mkdirSync(path.dirname(binary), { recursive: true });
  const partial = `${binary}.partial-${process.pid}`;
  const ldflags = `-s -w -X main.Version=${ENGINE_VERSION} -X main.Build=module -X main.BuildTime=none`;
  try {
    await exec(goBinary(env), ['build', '-trimpath', '-ldflags', ldflags, '-o', partial, ENGINE_PACKAGE], {
      cwd: ENGINE_MODULE_DIR,
      env: { ...env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOWORK: 'off', GOFLAGS: '-mod=readonly' },
      maxBuffer: 64 * 1024 * 1024,
    });
    renameSync(partial, binary);
  } finally {
    rmSync(partial, { force: true });
  }
  if (!(await isUpToDate(binary))) throw new Error(`${binary} does not report ${VERSION_LINE}`);
  return true;
}
