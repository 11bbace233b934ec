// The peer of the job benchmark: Temporal's CLI (whose `temporal server start-dev` is the development server) and the
// Go bench client of tools/bench/temporal/go/cmd/peer-bench, built from the committed Go module into a cache outside
// the repository, as the Kubernetes binaries are.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** The pinned Temporal CLI (github.com/temporalio/cli, required by the module's go.mod). */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
/** The Go consumer module that pins the CLI and holds the bench client (go.mod and go.sum are committed). */
export const PEER_MODULE_DIR = path.join(__dirname, 'go');

/** Where the binaries are cached: `$RUNPLANE_TEMPORAL_CACHE` or ~/.cache/runplane/temporal. */
export function peerCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env['RUNPLANE_TEMPORAL_CACHE'] ?? path.join(os.homedir(), '.cache', 'runplane', 'temporal');
}

/** The cached binaries: the `temporal` CLI and the `peer-bench` client. */
export function peerBinaries(env: NodeJS.ProcessEnv = process.env): { temporal: string; client: string } {
  const dir = peerCacheDir(env);
  return { temporal: path.join(dir, 'temporal'), client: path.join(dir, 'peer-bench') };
}

/** What `temporal --version` starts with for the pinned build (the version is stamped at link time, as upstream's). */
export const TEMPORAL_VERSION_LINE = `temporal version ${TEMPORAL_CLI_VERSION.slice(1)} (`;

/** The bench client's build id: a hash of the module's go.mod, go.sum and the client's sources. */
export function clientBuildId(moduleDir = PEER_MODULE_DIR): string {
  const clientDir = path.join(moduleDir, 'cmd', 'peer-bench');
  const sources = readdirSync(clientDir)
    .filter((name) => name.endsWith('.go'))
    .sort()
    .map((name) => path.join(clientDir, name));
  const hash = createHash('sha256');
  for (const file of [path.join(moduleDir, 'go.mod'), path.join(moduleDir, 'go.sum'), ...sources]) {
    hash.update(`${path.relative(moduleDir, file)}\n`).update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 16);
}

/** The Go toolchain: $GO, else /usr/local/go/bin/go, else `go` on PATH. */
function goBinary(env: NodeJS.ProcessEnv): string {
  const configured = env['GO'];
  if (configured !== undefined && configured !== '') return configured;
  return existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : 'go';
}

async function reports(binary: string, args: string[], expected: string): Promise<boolean> {
  if (!existsSync(binary)) return false;
  const { stdout } = await exec(binary, args).catch(() => ({ stdout: '' }));
  return stdout.includes(expected);
}

/** Builds `pkg` of the module to `binary` through a temporary file, so an interrupted build never looks complete. */
async function goBuild(env: NodeJS.ProcessEnv, pkg: string, binary: string, ldflags: string): Promise<void> {
  mkdirSync(path.dirname(binary), { recursive: true });
  const partial = `${binary}.partial-${process.pid}`;
  try {
    await exec(goBinary(env), ['build', '-ldflags', ldflags, '-o', partial, pkg], {
      cwd: PEER_MODULE_DIR,
      env: { ...env, GOTOOLCHAIN: 'local', GOWORK: 'off', GOFLAGS: '-mod=readonly' },
      maxBuffer: 64 * 1024 * 1024,
    });
    renameSync(partial, binary);
  } finally {
    rmSync(partial, { force: true });
  }
}

/** One binary: its package, link flags, and the version check its cached copy must pass. */
interface Target {
  pkg: string;
  binary: string;
  ldflags: string;
  check: [args: string[], expected: string];
}

function targets(env: NodeJS.ProcessEnv): Target[] {
  const { temporal, client } = peerBinaries(env);
  const buildId = clientBuildId();
  const version = TEMPORAL_CLI_VERSION.slice(1);
  return [
    {
      pkg: 'github.com/temporalio/cli/cmd/temporal',
      binary: temporal,
      ldflags: `-s -w -X github.com/temporalio/cli/temporalcli.Version=${version}`,
      check: [['--version'], TEMPORAL_VERSION_LINE],
    },
    {
      pkg: './cmd/peer-bench',
      binary: client,
      ldflags: `-s -w -X main.buildID=${buildId}`,
      check: [['-version'], buildId],
    },
  ];
}

/**
 * Builds the Temporal CLI and the bench client into the cache unless the cached binaries already report the pinned
 * version and the current sources' build id. Answers the binaries it built.
 */
export async function ensurePeerBinaries(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const built: string[] = [];
  for (const { pkg, binary, ldflags, check } of targets(env)) {
    if (await reports(binary, ...check)) continue;
    await goBuild(env, pkg, binary, ldflags);
    if (!(await reports(binary, ...check))) throw new Error(`${binary} does not report ${check[1]}`);
    built.push(binary);
  }
  return built;
}
