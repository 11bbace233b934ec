import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isProcessAlive, signalProcessGroup } from './process';

/**
 * Bookkeeping that lets a control plane clean up after another one whose owner died without
 * stopping it (a killed jest or `npm run k8s:up`): each run folder records the owning process and
 * the process groups it started.
 */

const OWNER_FILE = 'owner.json';

interface RunOwner {
  ownerPid: number;
  processGroups: number[];
}

function ownerFile(dir: string): string {
  return path.join(dir, OWNER_FILE);
}

function readOwner(dir: string): RunOwner | undefined {
  try {
    return JSON.parse(readFileSync(ownerFile(dir), 'utf8')) as RunOwner;
  } catch {
    return undefined;
  }
}

/** Marks a new run folder as owned by `ownerPid`. */
export function writeRunOwner(dir: string, ownerPid: number): void {
  writeFileSync(ownerFile(dir), JSON.stringify({ ownerPid, processGroups: [] } satisfies RunOwner));
}

/** Records a process group started for the run. */
export function recordRunProcess(dir: string, pgid: number): void {
  const owner = readOwner(dir);
  if (owner === undefined) return;
  owner.processGroups.push(pgid);
  writeFileSync(ownerFile(dir), JSON.stringify(owner));
}

/** Every component's command line names its run folder; checking it guards against a reused pid. */
function commandLineMentions(pid: number, dir: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir);
  } catch {
    return false;
  }
}

/**
 * Kills the process groups of every run whose owner is gone and removes its folder. Returns the
 * folders removed. A folder without an owner file is left alone (another start may be writing it).
 */
export function sweepStaleRuns(runsDir: string): string[] {
  if (!existsSync(runsDir)) return [];
  const removed: string[] = [];
  for (const entry of readdirSync(runsDir)) {
    const dir = path.join(runsDir, entry);
    const owner = readOwner(dir);
    if (owner === undefined || isProcessAlive(owner.ownerPid)) continue;
    for (const pgid of owner.processGroups) if (commandLineMentions(pgid, dir)) signalProcessGroup(pgid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}
