import { JobRunner, type RunningJob } from './job-runner';
import { resolveSettings, type WorkerSettings } from './settings';
import { ProtocolTransport } from './transport';
import type { WorkerJob, WorkerOptions } from './types';

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Wakes every waiter on the next `notify()` (a job started or finished), or when `signal` aborts. */
class Changes {
  private waiters: (() => void)[] = [];

  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  wait(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        signal.removeEventListener('abort', wake);
        resolve();
      };
      this.waiters.push(wake);
      signal.addEventListener('abort', wake, { once: true });
    });
  }
}

// RunPod's SDK waits a second after an empty job-stop answer that came back at once.
const EMPTY_STOP_PAUSE_MS = 1000;

/** The worker loop: takes jobs up to the concurrency, runs them, pings, and obeys stop requests. */
class WorkerRuntime {
  private readonly transport: ProtocolTransport;
  private readonly runner: JobRunner;
  private readonly running = new Map<string, { state: RunningJob; done: Promise<void> }>();
  private readonly changes = new Changes();
  // Ping and stop loops outlive the take loop until the last running job has reported.
  private readonly background = new AbortController();
  private concurrency = 1;

  constructor(private readonly settings: WorkerSettings) {
    this.transport = new ProtocolTransport(settings);
    this.runner = new JobRunner(this.transport, settings.handler, settings.workerId, settings.returnAggregateStream);
  }

  async run(): Promise<void> {
    const loops = [this.pingLoop(), this.stopLoop()];
    await this.takeLoop();
    await Promise.all([...this.running.values()].map((job) => job.done));
    this.background.abort();
    this.changes.notify();
    await Promise.all(loops);
  }

  private nextConcurrency(): number {
    const { concurrency } = this.settings;
    if (typeof concurrency === 'number') return concurrency;
    const next = Math.floor(concurrency(this.concurrency));
    this.concurrency = Number.isFinite(next) && next >= 1 ? next : 1;
    return this.concurrency;
  }

  private async takeLoop(): Promise<void> {
    const { signal } = this.settings;
    while (!signal.aborted) {
      const free = this.nextConcurrency() - this.running.size;
      if (free <= 0) {
        await this.changes.wait(signal);
        continue;
      }
      const { jobs, backoffMs } = await this.transport.take(free, this.running.size > 0, signal);
      for (const job of jobs) this.start(job);
      await sleep(backoffMs, signal);
    }
  }

  private start(job: WorkerJob): void {
    if (this.running.has(job.id)) return;
    const state: RunningJob = { controller: new AbortController(), stopRequested: false, finished: false };
    const done = this.runner.run(job, state).finally(() => this.release(job.id, state));
    this.running.set(job.id, { state, done });
    this.changes.notify();
  }

  private release(jobId: string, state: RunningJob): void {
    if (this.running.get(jobId)?.state !== state) return;
    this.running.delete(jobId);
    this.changes.notify();
  }

  private async pingLoop(): Promise<void> {
    const signal = this.background.signal;
    while (!signal.aborted) {
      await this.transport.ping([...this.running.keys()], signal);
      await sleep(this.settings.pingIntervalMs, signal);
    }
  }

  private async stopLoop(): Promise<void> {
    const signal = this.background.signal;
    while (!signal.aborted) {
      if (this.running.size === 0) {
        await this.changes.wait(signal);
        continue;
      }
      const asked = Date.now();
      const ids = await this.transport.stopRequests(signal);
      for (const id of ids) this.stopJob(id);
      if (ids.length === 0 && Date.now() - asked < EMPTY_STOP_PAUSE_MS) await sleep(EMPTY_STOP_PAUSE_MS, signal);
    }
  }

  private stopJob(jobId: string): void {
    const job = this.running.get(jobId);
    if (!job || job.state.finished) return;
    job.state.stopRequested = true;
    job.state.controller.abort(new Error(`job ${jobId} was stopped by the platform`));
    // The slot is free at once: a handler that ignores its signal must not hold the worker.
    this.release(jobId, job.state);
  }
}

/**
 * Runs a serverless worker until `signal` aborts: long-polls job-take (batch take when more than one slot is
 * free), runs the handler, reports with job-done / job-stream, pings every interval and stops jobs the
 * platform names on job-stop. Resolves once every job taken has reported. Throws WorkerConfigError at once
 * when misconfigured.
 */
export async function runWorker(options: WorkerOptions): Promise<void> {
  await new WorkerRuntime(resolveSettings(options)).run();
}
