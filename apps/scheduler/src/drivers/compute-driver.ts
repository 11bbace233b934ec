/**
 * The seam between the scheduler and the compute it drives. Two drivers implement it: `local` (processes on this
 * machine) and `kubernetes` (Pods on a cluster). Everything a driver creates is keyed by the Runplane Pod id, so
 * every call is idempotent and the scheduler can rebuild its view after a restart with {@link ComputeDriver.list}.
 */

import type { LogCursor, LogLine, LogSource } from '@runplane/contracts';
import type { ReportedMachine } from '@runplane/placement';
import type { LeaderElection } from '../leader/leader-election';

/** A machine (node) the driver offers, as reported by the driver; the inventory mirrors it into the Machine table. */
export type DriverMachine = ReportedMachine;

/**
 * The ports a load-balancing worker's servers listen on inside its workload (env `PORT` and `PORT_HEALTH`; one port
 * when they are equal). The local driver replaces them with free loopback ports of its own.
 */
export interface LoadBalancerPorts {
  port: number;
  healthPort: number;
}

/** What to run for one Pod or worker. `generation` changes when the workload must be recreated (restart, reset). */
export interface WorkloadSpec {
  podId: string;
  accountId: string;
  /** Set for serverless workers. */
  endpointId: string | null;
  generation: number;
  image: string;
  /** Entrypoint then arguments (dockerEntrypoint + dockerStartCmd). */
  command: string[];
  /** Environment, secrets included (the driver decides how to hold them: a Secret, a process env). */
  env: Record<string, string>;
  machineName: string;
  gpuCount: number;
  gpuProduct: string | null;
  vcpuCount: number;
  memoryInGb: number;
  ports: string[];
  /** Reset wipes the container disk; the local driver has none, Kubernetes recreates the ephemeral volume. */
  wipeContainerDisk: boolean;
  /** Set for workers of load-balancing endpoints: the job-router sends them requests on these ports. */
  loadBalancer: LoadBalancerPorts | null;
  /** The network volume the workload mounts (the local driver gives it the volume's directory). */
  networkVolumeId?: string | null;
}

/** Observed phase of a workload. */
export type WorkloadPhase = 'CREATING' | 'RUNNING' | 'EXITED' | 'FAILED';

/** What the driver knows about one workload. */
export interface WorkloadStatus {
  podId: string;
  generation: number;
  phase: WorkloadPhase;
  startedAt: Date | null;
  finishedAt: Date | null;
  machineName: string;
  publicIp: string | null;
  /** Internal port -> public port. */
  portMappings: Record<string, number>;
  /** The machine was reclaimed (spot/interruptible). */
  preempted: boolean;
  /** Why it failed or exited (exit code, OOM, image pull error ...). */
  reason: string | null;
  /** Load-balancing workers: "host:port" where the job-router reaches the worker's HTTP server; null until it runs. */
  serviceAddress: string | null;
  /** Load-balancing workers: "host:port" of the worker's health server (the same as serviceAddress on one port). */
  healthAddress: string | null;
  /** Cold-start phases only the cluster sees (Kubernetes); absent on the local driver. */
  coldStart?: { scheduledAt: Date | null; imagePulledAt: Date | null };
}

/** Calls back when a workload or the machine list changed, so the reconciler does not wait for its next tick. */
export type ChangeListener = (change: { kind: 'workload'; podId: string } | { kind: 'machines' }) => void;

/** What a log stream asks a driver for: backfill (`tail`, `since`, or everything after `after`), then follow. */
export interface LogFollowRequest {
  podId: string;
  tail: number;
  since: Date | null;
  after: LogCursor | null;
  sources: readonly LogSource[];
  /** Each batch of lines, in order. */
  onLines: (lines: LogLine[]) => void;
  /** The upstream failed; the stream ends. */
  onError: (error: Error) => void;
}

/** An open log stream; `close` releases its upstream (file watch, apiserver request) at once. */
export interface LogFollower {
  close(): void;
}

/** A compute backend. */
export interface ComputeDriver {
  readonly name: 'local' | 'kubernetes';
  /** Machines with their totals (free capacity is computed by the scheduler from Pods and reservations). */
  machines(): Promise<DriverMachine[]>;
  /** Starts the workload unless one of the same generation exists; an older generation is replaced. */
  ensureRunning(spec: WorkloadSpec): Promise<WorkloadStatus>;
  /** Ends the workload's process/container but keeps its volume (RunPod "stop"). Idempotent. */
  stop(podId: string): Promise<void>;
  /** Removes the workload and everything created for it. Idempotent. */
  delete(podId: string): Promise<void>;
  /** The workload's status, or null when the driver has nothing for this Pod id. */
  status(podId: string): Promise<WorkloadStatus | null>;
  /** Every workload this driver manages (after a restart: from labels or pid files), for orphan clean-up. */
  list(): Promise<WorkloadStatus[]>;
  onChange(listener: ChangeListener): void;
  /** Streams a workload's container output and platform events until closed (see apps/scheduler/src/drivers/logs). */
  followLogs(request: LogFollowRequest): LogFollower;
  /** The driver's own leader election (kubernetes: a Lease); without it the scheduler elects through Redis. */
  leaderElection?(ttlMs: number): LeaderElection;
  close(): Promise<void>;
}
