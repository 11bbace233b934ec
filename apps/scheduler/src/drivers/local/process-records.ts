import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadBalancerPorts, WorkloadPhase } from '../compute-driver';

/** What the local driver remembers about one workload process, in `<stateDir>/workloads/<podId>.json`. */
export interface ProcessRecord {
  podId: string;
  generation: number;
  pid: number;
  phase: WorkloadPhase;
  startedAt: string;
  finishedAt: string | null;
  machineName: string;
  ports: string[];
  reason: string | null;
  /** A load-balancing worker's loopback ports (PORT, PORT_HEALTH); absent for other workloads and older records. */
  loadBalancer?: LoadBalancerPorts | null;
}

/**
 * Pid files of the local driver: the only state it needs to find its processes again after the scheduler restarts
 * (the process environment never goes to disk: it holds the worker token).
 */
export class ProcessRecords {
  private readonly dir: string;

  constructor(stateDir: string) {
    this.dir = join(stateDir, 'workloads');
    mkdirSync(this.dir, { recursive: true });
  }

  get logDir(): string {
    return this.dir;
  }

  /** The workload's output (stdout and stderr of every generation, appended). */
  logFile(podId: string): string {
    this.file(podId);
    return join(this.dir, `${podId}.log`);
  }

  read(podId: string): ProcessRecord | null {
    try {
      return JSON.parse(readFileSync(this.file(podId), 'utf8')) as ProcessRecord;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  /** Written to a temporary file then renamed, so a crash never leaves half a record. */
  write(record: ProcessRecord): void {
    const target = this.file(record.podId);
    writeFileSync(`${target}.tmp`, JSON.stringify(record));
    renameSync(`${target}.tmp`, target);
  }

  remove(podId: string): void {
    rmSync(this.file(podId), { force: true });
    rmSync(join(this.dir, `${podId}.log`), { force: true });
  }

  all(): ProcessRecord[] {
    return readdirSync(this.dir)
      .filter((name) => name.endsWith('.json'))
      .map((name) => this.read(name.slice(0, -'.json'.length)))
      .filter((record): record is ProcessRecord => record !== null);
  }

  private file(podId: string): string {
    if (!/^[A-Za-z0-9_-]+$/.test(podId)) throw new Error(`invalid pod id for a pid file: ${podId}`);
    return join(this.dir, `${podId}.json`);
  }
}
