/**
 * Keeps package-lock.json installable with `npm ci` on every platform.
 *
 * Native packages (@swc/core, nx, msgpackr-extract, unrs-resolver) list one optional dependency per
 * platform. A registry that serves only the packages of the machine's own platform answers 404 for the
 * others, so `npm install` leaves them out of the lockfile, and `npm ci` then refuses the lockfile as out
 * of sync ("Missing: @swc/core-darwin-arm64@ from lock file"). npm never downloads an optional package
 * whose `os`/`cpu`/`libc` do not match the machine, so a lock entry naming its version and platform is all
 * `npm ci` needs; those fields are read from the package name, which encodes them by convention
 * (`<name>-<os>-<cpu>[-<abi>]`).
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** One `packages` entry of a lockfile v3 (only the fields this module reads or writes). */
export interface LockEntry {
  version?: string;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optionalDependencies?: Record<string, string>;
  [field: string]: unknown;
}

/** A lockfile v3: `packages` keyed by install path ("" is the root project). */
export interface Lockfile {
  packages: Record<string, LockEntry>;
  [field: string]: unknown;
}

/** An optional dependency that no lock entry resolves, from the entry that declares it. */
export interface MissingOptional {
  parent: string;
  name: string;
  spec: string;
}

export interface Platform {
  os: string;
  cpu: string;
  libc?: 'glibc' | 'musl';
}

const OSES = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openharmony', 'netbsd', 'openbsd', 'sunos', 'aix'];
const CPUS = ['arm64', 'x64', 'arm', 'ia32', 'ppc64', 'ppc64le', 's390x', 'riscv64', 'loong64', 'mips64el'];

/** The platform a native package is built for, read from its name; undefined when the name names none. */
export function platformOf(name: string): Platform | undefined {
  const tokens = (name.split('/').pop() ?? name).split('-');
  for (let i = tokens.length - 2; i >= 0; i--) {
    const [os, cpu, abi] = [tokens[i], tokens[i + 1], tokens[i + 2]];
    if (!os || !cpu || !OSES.includes(os) || !CPUS.includes(cpu)) continue;
    if (abi?.startsWith('musl')) return { os, cpu, libc: 'musl' };
    if (abi?.startsWith('gnu')) return { os, cpu, libc: 'glibc' };
    return { os, cpu };
  }
  return undefined;
}

/** Where Node would resolve `name` from the package installed at `from`, or undefined. */
function resolves(lock: Lockfile, from: string, name: string): boolean {
  let dir = from;
  for (;;) {
    if (lock.packages[`${dir ? `${dir}/` : ''}node_modules/${name}`]) return true;
    if (!dir) return false;
    const cut = dir.lastIndexOf('node_modules/');
    dir = cut <= 0 ? '' : dir.slice(0, cut - 1);
  }
}

/** Optional dependencies declared in the lockfile that no entry resolves. */
export function missingOptionals(lock: Lockfile): MissingOptional[] {
  const missing: MissingOptional[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
      if (!resolves(lock, path, name)) missing.push({ parent: path, name, spec });
    }
  }
  return missing;
}

/**
 * Adds a lock entry for every missing optional dependency whose platform its name gives: at the root
 * `node_modules` when free, else beside its parent. Returns what it added, and what it could not (a name
 * without a platform, or a version range rather than an exact version).
 */
export function addPlatformOptionals(lock: Lockfile): { added: string[]; unresolved: MissingOptional[] } {
  const added: string[] = [];
  const unresolved: MissingOptional[] = [];
  for (const dep of missingOptionals(lock)) {
    const platform = platformOf(dep.name);
    if (!platform || !/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(dep.spec)) {
      unresolved.push(dep);
      continue;
    }
    const rootPath = `node_modules/${dep.name}`;
    const path = lock.packages[rootPath] ? `${dep.parent}/node_modules/${dep.name}` : rootPath;
    // Fields in the order npm itself writes such an entry, so a later `npm install` leaves it as it is.
    lock.packages[path] = {
      version: dep.spec,
      cpu: [platform.cpu],
      ...(lock.packages[dep.parent]?.dev ? { dev: true } : {}),
      ...(platform.libc ? { libc: [platform.libc] } : {}),
      optional: true,
      os: [platform.os],
    };
    added.push(path);
  }
  // npm orders entries by an English locale comparison; keeping that order keeps npm's own rewrites quiet.
  const entries = Object.entries(lock.packages).sort(([a], [b]) => a.localeCompare(b, 'en'));
  lock.packages = Object.fromEntries(entries);
  return { added, unresolved };
}

/** `npm run lockfile:platforms`: completes package-lock.json in place; exits 1 when something is left. */
export function main(file = 'package-lock.json'): number {
  const lock = JSON.parse(readFileSync(file, 'utf8')) as Lockfile;
  const { added, unresolved } = addPlatformOptionals(lock);
  writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
  for (const path of added) console.log(`added ${path}`);
  for (const dep of unresolved)
    console.error(`cannot add ${dep.name}@${dep.spec} (optional dependency of ${dep.parent || 'the root'})`);
  return unresolved.length ? 1 : 0;
}

if (require.main === module) process.exitCode = main(process.argv[2]);
