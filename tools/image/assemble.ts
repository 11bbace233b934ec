/**
 * Assembles, without Docker, the file tree the repository's Dockerfile puts under the image's WORKDIR: it reads
 * the Dockerfile's stages and mirrors each COPY of the final stage. The stage that copies the whole context
 * (`COPY . .`, the build stage) is this checkout after its RUN lines (`npm run build` must have run); any other
 * stage (the production dependencies) is rebuilt in a scratch directory by copying its files from the context and
 * running its RUN lines, and cached outside the repository keyed by what it copies and runs (the lockfile); the S3
 * engine stage is the binary `npm run s3:build` built from the same Go module.
 *
 * `node -r @swc-node/register tools/image/assemble.ts [dir]` prints the assembled directory.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, posix, resolve } from 'node:path';
import { promisify } from 'node:util';
import { engineBinaryPath } from '@runplane/volume-buckets';
import { type CopyInstruction, type DockerStage, nodeFlagsOf, parseDockerfile } from './dockerfile';

const REPO_ROOT = resolve(__dirname, '..', '..');
const run = promisify(execFile);

/** Where {@link assembleImage} works. */
export interface AssembleOptions {
  root?: string;
  /** Cache of dependency stages and assembled trees (default `RUNPLANE_IMAGE_CACHE`, else runplane-image in the temp directory). */
  cacheDir?: string;
  log?: (message: string) => void;
}

/** The tree the image would hold under its WORKDIR, and how the image runs it. */
export interface AssembledImage {
  /** Stands for the image's WORKDIR (/app). */
  appDir: string;
  workdir: string;
  /** The final stage's ENV settings. */
  env: Record<string, string>;
  /** The flags its CMD gives `node` before the script (see nodeFlagsOf). */
  nodeFlags: string[];
  /** Stands for the base image's `/usr/local/bin/node` (see baseImageNode). */
  node: string;
}

// Under the system temp directory, not HOME: the image's user (10001) must be able to reach the tree.
function defaultCacheDir(): string {
  return process.env.RUNPLANE_IMAGE_CACHE ?? join(tmpdir(), 'runplane-image');
}

/** True for the stage that copies the whole build context: this checkout stands for it. */
function copiesWholeContext(stage: DockerStage): boolean {
  return stage.copies.some((copy) => copy.from === undefined && copy.sources.length === 1 && copy.sources[0] === '.');
}

/** Where an image path (absolute, or relative to `workdir`) lies inside `dir`, which stands for `workdir`. */
export function hostPath(dir: string, workdir: string, imagePath: string): string {
  const absolute = posix.resolve(workdir, imagePath);
  const inside = posix.relative(workdir, absolute);
  if (inside.startsWith('..') || isAbsolute(inside)) throw new Error(`${imagePath} lies outside WORKDIR ${workdir}`);
  return join(dir, inside);
}

/** Docker's COPY: a directory's contents go to the destination; a file goes into a destination ending in `/`. */
function copyInto(source: string, destination: string, destinationIsDir: boolean): void {
  if (!existsSync(source)) throw new Error(`COPY source ${source} does not exist (has npm run build run?)`);
  const target =
    destinationIsDir && !source.endsWith('/') && !isDirectory(source)
      ? join(destination, posix.basename(source))
      : destination;
  rmSync(target, { recursive: true, force: true });
  mkdirSync(dirname(target), { recursive: true });
  cpSync(source, target, { recursive: true, verbatimSymlinks: true });
}

function isDirectory(path: string): boolean {
  return statSync(path).isDirectory();
}

/** What building a stage needs: the context (this checkout), every stage, where to keep built stages. */
interface StageBuild {
  root: string;
  stages: DockerStage[];
  cacheDir: string;
  log: (message: string) => void;
}

/** A file's or a directory's contents, for a stage's cache key. */
function hashPath(hash: ReturnType<typeof createHash>, path: string): void {
  if (!isDirectory(path)) {
    hash.update(path).update(readFileSync(path));
    return;
  }
  for (const entry of readdirSync(path).sort()) hashPath(hash, join(path, entry));
}

/** Identifies a dependency stage by what it copies (files of the context, other stages' keys) and runs. */
function stageKey(root: string, stage: DockerStage, stages: DockerStage[]): string {
  const hash = createHash('sha256').update(
    JSON.stringify({ copies: stage.copies, runs: stage.runs, workdir: stage.workdir }),
  );
  for (const copy of stage.copies) {
    const from = copy.from === undefined ? undefined : namedStage(stages, copy.from);
    if (from !== undefined && !copiesWholeContext(from)) hash.update(stageKey(root, from, stages));
    else
      for (const source of copy.sources)
        hashPath(hash, from === undefined ? join(root, source) : hostPath(root, from.workdir, source));
  }
  return hash.digest('hex').slice(0, 16);
}

function namedStage(stages: DockerStage[], name: string): DockerStage {
  const stage = stages.find((candidate) => candidate.name === name);
  if (stage === undefined) throw new Error(`COPY --from=${name}: no stage of that name`);
  return stage;
}

/**
 * Runs a dependency stage (COPY from the context or from other stages, then RUN) in a scratch directory, once per
 * key.
 */
async function buildStage(build: StageBuild, stage: DockerStage): Promise<string> {
  const { root, stages, cacheDir, log } = build;
  const dir = join(cacheDir, `${stage.name}-${stageKey(root, stage, stages)}`);
  if (existsSync(dir)) return dir;
  const scratch = `${dir}.tmp-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  for (const copy of stage.copies) {
    if (copy.from !== undefined) {
      const from = namedStage(stages, copy.from);
      copyFromStage(copy, { dir: await stageRoot(build, from), stage: from }, scratch, stage.workdir);
      continue;
    }
    const destination = hostPath(scratch, stage.workdir, copy.destination);
    for (const source of copy.sources) copyInto(join(root, source), destination, copy.destination.endsWith('/'));
  }
  // The same Node and npm as this process, first on PATH, as in the image.
  const env = { ...process.env, PATH: [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter) };
  for (const command of stage.runs) {
    log(`stage ${stage.name}: ${command}`);
    await run('sh', ['-c', command], { cwd: scratch, env, maxBuffer: 64 * 1024 * 1024 });
  }
  renameSync(scratch, dir);
  // Earlier lockfiles' trees are half a gigabyte each: keep only the current one.
  for (const entry of readdirSync(cacheDir)) {
    if (entry.startsWith(`${stage.name}-`) && join(cacheDir, entry) !== dir)
      rmSync(join(cacheDir, entry), { recursive: true, force: true });
  }
  return dir;
}

/**
 * Stages whose output this machine builds another way, by the directory that stands for the stage's WORKDIR: the S3
 * engine stage's `bin/versitygw` is the binary `npm run s3:build` cached, built from the same pinned Go module.
 */
const PREBUILT_STAGES: Record<string, { root: () => string; hint: string }> = {
  's3-engine': { root: () => dirname(dirname(engineBinaryPath())), hint: 'npm run s3:build' },
};

async function stageRoot(build: StageBuild, stage: DockerStage): Promise<string> {
  const prebuilt = PREBUILT_STAGES[stage.name];
  if (prebuilt !== undefined) {
    const root = prebuilt.root();
    if (!existsSync(root)) throw new Error(`stage ${stage.name}: ${root} does not exist (run ${prebuilt.hint})`);
    return root;
  }
  return copiesWholeContext(stage) ? build.root : buildStage(build, stage);
}

function copyFromStage(
  copy: CopyInstruction,
  source: { dir: string; stage: DockerStage },
  appDir: string,
  workdir: string,
): void {
  const destination = hostPath(appDir, workdir, copy.destination);
  for (const path of copy.sources) {
    if (!posix.isAbsolute(path)) throw new Error(`COPY --from=${copy.from} ${path}: use an absolute path in the stage`);
    copyInto(hostPath(source.dir, source.stage.workdir, path), destination, copy.destination.endsWith('/'));
  }
}

/**
 * The base image's Node (`/usr/local/bin/node` of node:24-bookworm-slim): this process's own binary, copied under
 * the cache (mode 0755) when missing or older, so the image user can run it wherever this checkout lies (a checkout
 * under a 0700 directory, as `mktemp -d` makes, is closed to every other user).
 */
export function baseImageNode(cacheDir: string): string {
  const node = join(cacheDir, 'base', 'usr', 'local', 'bin', 'node');
  const source = statSync(process.execPath);
  const copied = existsSync(node) ? statSync(node) : undefined;
  if (copied !== undefined && copied.size === source.size && copied.mtimeMs >= source.mtimeMs) return node;
  mkdirSync(dirname(node), { recursive: true });
  const scratch = `${node}.tmp-${process.pid}`;
  copyFileSync(process.execPath, scratch);
  chmodSync(scratch, 0o755);
  renameSync(scratch, node);
  return node;
}

/**
 * Assembles the image's WORKDIR tree under the cache directory and returns it. Dependency stages are reused while
 * their inputs are unchanged; everything the final stage copies is copied afresh on every call.
 */
export async function assembleImage(options: AssembleOptions = {}): Promise<AssembledImage> {
  const root = options.root ?? REPO_ROOT;
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const log = options.log ?? (() => undefined);
  const stages = parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'));
  const image = stages[stages.length - 1];
  if (image === undefined) throw new Error('the Dockerfile has no stage');
  const appDir = join(cacheDir, 'app');
  // A test that made the tree read-only (as the image's root filesystem is) may have died before undoing it.
  if (existsSync(appDir)) await run('chmod', ['-R', 'u+w', appDir]);
  rmSync(appDir, { recursive: true, force: true });
  mkdirSync(appDir, { recursive: true });
  const build: StageBuild = { root, stages, cacheDir, log };
  for (const copy of image.copies) {
    if (copy.from === undefined)
      throw new Error(`the final stage must copy from a named stage: COPY ${copy.sources.join(' ')}`);
    const stage = namedStage(stages, copy.from);
    copyFromStage(copy, { dir: await stageRoot(build, stage), stage }, appDir, image.workdir);
  }
  return {
    appDir,
    workdir: image.workdir,
    env: image.env,
    nodeFlags: nodeFlagsOf(image.cmd),
    node: baseImageNode(cacheDir),
  };
}

if (require.main === module) {
  assembleImage({ cacheDir: process.argv[2], log: (message) => process.stderr.write(`${message}\n`) }).then(
    (image) => process.stdout.write(`${image.appDir}\n`),
    (err: unknown) => {
      process.stderr.write(`assemble failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
