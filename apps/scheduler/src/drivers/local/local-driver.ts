import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type {
  ChangeListener,
  ComputeDriver,
  DriverMachine,
  LoadBalancerPorts,
  LogFollower,
  LogFollowRequest,
  WorkloadSpec,
  WorkloadStatus,
} from '../compute-driver';
import { LocalLogFollower } from './local-logs';
import { allocateLoopbackPorts, loopbackAddress } from './loopback-ports';
import { isWorkloadAlive, terminateWorkload, WORKLOAD_MARKER } from './process-group';
import { type ProcessRecord, ProcessRecords } from './process-records';
import { localVolumeEnv } from './volume-dirs';

/** Settings of the local driver. */
export interface LocalDriverOptions {
  /** Pid files and process logs live under here. */
  stateDir: string;
  /** Working directory of workload processes (relative commands resolve against it). */
  workDir: string;
  machines: DriverMachine[];
  /** SIGTERM first, SIGKILL after this long. */
  stopGraceMs: number;
  /** Variables of the scheduler's own environment that workloads inherit (PATH, HOME ...); nothing else leaks. */
  inheritedEnv: Record<string, string>;
  /** Network volumes: one directory each, named by volume id (RUNPLANE_VOLUME_PATH of a Pod on one). */
  volumesDir?: string;
}

/** A Pod with no start command still runs something, so its lifecycle and billing behave as elsewhere. */
const IDLE_COMMAND = ['node', '-e', 'setInterval(() => {}, 1 << 30)'];

function portMappings(ports: readonly string[]): Record<string, number> {
  // Processes share the host network: every declared port is reachable as itself.
  return Object.fromEntries(
    ports
      .map((port) => Number.parseInt(port, 10))
      .filter(Number.isInteger)
      .map((port) => [String(port), port]),
  );
}

function toStatus(record: ProcessRecord): WorkloadStatus {
  const served = record.phase === 'RUNNING' ? (record.loadBalancer ?? null) : null;
  return {
    podId: record.podId,
    generation: record.generation,
    phase: record.phase,
    startedAt: new Date(record.startedAt),
    finishedAt: record.finishedAt === null ? null : new Date(record.finishedAt),
    machineName: record.machineName,
    publicIp: record.phase === 'RUNNING' ? '127.0.0.1' : null,
    portMappings: record.phase === 'RUNNING' ? portMappings(record.ports) : {},
    preempted: false,
    reason: record.reason,
    serviceAddress: served ? loopbackAddress(served.port) : null,
    healthAddress: served ? loopbackAddress(served.healthPort) : null,
  };
}

/**
 * Runs each Pod or worker as a local process group (`dockerEntrypoint` + `dockerStartCmd`, `node` meaning this
 * Node), with the environment a Kubernetes container would get. The image is not pulled: the command runs on this
 * machine. Pid files make it restart-safe: a restarted scheduler adopts the processes it finds alive.
 */
export class LocalDriver implements ComputeDriver {
  readonly name = 'local' as const;
  private readonly records: ProcessRecords;
  private readonly listeners: ChangeListener[] = [];
  private readonly stopping = new Set<string>();
  /** Processes this scheduler started: their exit event carries the exit code, which a pid check cannot see. */
  private readonly children = new Map<string, ChildProcess>();

  constructor(private readonly options: LocalDriverOptions) {
    this.records = new ProcessRecords(options.stateDir);
  }

  machines(): Promise<DriverMachine[]> {
    return Promise.resolve(this.options.machines.map((machine) => ({ ...machine })));
  }

  async ensureRunning(spec: WorkloadSpec): Promise<WorkloadStatus> {
    const current = this.refresh(spec.podId);
    if (current && current.phase === 'RUNNING' && current.generation === spec.generation) return toStatus(current);
    if (current && current.phase === 'RUNNING') await this.stop(spec.podId);
    const loadBalancer = spec.loadBalancer ? await allocateLoopbackPorts(spec.loadBalancer) : null;
    return toStatus(this.spawn(spec, loadBalancer));
  }

  async stop(podId: string): Promise<void> {
    const record = this.refresh(podId);
    if (!record || record.phase !== 'RUNNING') return;
    this.stopping.add(podId);
    try {
      await terminateWorkload(record.pid, podId, this.options.stopGraceMs);
      this.records.write({ ...record, phase: 'EXITED', finishedAt: new Date().toISOString(), reason: 'Stopped' });
    } finally {
      this.stopping.delete(podId);
    }
    this.emit({ kind: 'workload', podId });
  }

  async delete(podId: string): Promise<void> {
    await this.stop(podId);
    this.records.remove(podId);
  }

  status(podId: string): Promise<WorkloadStatus | null> {
    const record = this.refresh(podId);
    return Promise.resolve(record ? toStatus(record) : null);
  }

  list(): Promise<WorkloadStatus[]> {
    return Promise.resolve(
      this.records
        .all()
        .map((record) => this.refresh(record.podId))
        .filter((record): record is ProcessRecord => record !== null)
        .map(toStatus),
    );
  }

  onChange(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  followLogs(request: LogFollowRequest): LogFollower {
    const file = this.records.logFile(request.podId);
    return new LocalLogFollower({ file, record: () => this.records.read(request.podId), request });
  }

  /**
   * Processes keep running when the scheduler stops: a restarted scheduler adopts them. Under `npm start` the
   * platform runner stops them once the scheduler is down (stopRecordedWorkloads).
   */
  close(): Promise<void> {
    this.listeners.length = 0;
    return Promise.resolve();
  }

  /** The record, with a process found dead (adopted ones have no exit event) marked FAILED. */
  private refresh(podId: string): ProcessRecord | null {
    const record = this.records.read(podId);
    if (!record || record.phase !== 'RUNNING' || this.stopping.has(podId)) return record;
    const child = this.children.get(podId);
    // Our own child: its exit event (with the exit code) is the authority, and comes once Node has reaped it.
    if (child?.pid === record.pid && child.exitCode === null && child.signalCode === null) return record;
    if (isWorkloadAlive(record.pid, podId)) return record;
    const gone: ProcessRecord = {
      ...record,
      phase: 'FAILED',
      finishedAt: new Date().toISOString(),
      reason: record.reason ?? 'Process exited',
    };
    this.records.write(gone);
    return gone;
  }

  /** Starts the process; a load-balancing worker listens on the loopback ports given (its PORT and PORT_HEALTH). */
  private spawn(spec: WorkloadSpec, loadBalancer: LoadBalancerPorts | null): ProcessRecord {
    const [command, ...args] = spec.command.length > 0 ? spec.command : IDLE_COMMAND;
    const log = openSync(this.records.logFile(spec.podId), 'a');
    const ports = loadBalancer ? { PORT: String(loadBalancer.port), PORT_HEALTH: String(loadBalancer.healthPort) } : {};
    const child = spawn(command === 'node' ? process.execPath : (command as string), args, {
      cwd: this.options.workDir,
      env: {
        ...this.options.inheritedEnv,
        ...spec.env,
        ...ports,
        ...this.volumeEnv(spec),
        [WORKLOAD_MARKER]: spec.podId,
      },
      detached: true,
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    const record: ProcessRecord = {
      podId: spec.podId,
      generation: spec.generation,
      pid: child.pid ?? -1,
      phase: child.pid === undefined ? 'FAILED' : 'RUNNING',
      startedAt: new Date().toISOString(),
      finishedAt: null,
      machineName: spec.machineName,
      ports: spec.ports,
      reason: null,
      loadBalancer,
    };
    child.once('error', (error) => this.exited(spec.podId, record.pid, `Could not start: ${error.message}`));
    child.once('exit', (code, signal) =>
      this.exited(spec.podId, record.pid, signal ? `Killed by ${signal}` : `Exit code ${code}`),
    );
    child.unref();
    if (child.pid !== undefined) this.children.set(spec.podId, child);
    this.records.write(record);
    return record;
  }

  private volumeEnv(spec: WorkloadSpec): Record<string, string> {
    return this.options.volumesDir === undefined ? {} : localVolumeEnv(this.options.volumesDir, spec.networkVolumeId);
  }

  private exited(podId: string, pid: number, reason: string): void {
    if (this.children.get(podId)?.pid === pid) this.children.delete(podId);
    const record = this.records.read(podId);
    // A newer process of the same Pod (restart) or a stop in progress owns the record now.
    if (!record || record.pid !== pid || this.stopping.has(podId) || record.phase !== 'RUNNING') return;
    this.records.write({ ...record, phase: 'FAILED', finishedAt: new Date().toISOString(), reason });
    this.emit({ kind: 'workload', podId });
  }

  private emit(change: Parameters<ChangeListener>[0]): void {
    for (const listener of this.listeners) listener(change);
  }
}
