import { createAccountsServices } from '@runplane/accounts';
import { createPrismaClient, ensureDatabaseExists } from '@runplane/db';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { APP_NAMES, appLaunches, schedulerStateDir } from './apps';
import { stopRecordedWorkloads } from '../../apps/scheduler/src/drivers/local/stop-recorded';
import { ensureAdminKey, prepareDatabase } from './bootstrap';
import type { RunnerConfig } from './config';
import { stopLeftovers } from './leftovers';
import { resolvePostgres } from './postgres';
import { waitForReady } from './readiness';
import { resolveRedis } from './redis';
import type { ResolvedService } from './services';
import { ensureStateDir, loadOrCreateEncryptionKey, STATE_FILES, writePids } from './state';
import { Supervisor } from './supervisor';

const PREFIX_WIDTH = Math.max(...APP_NAMES.map((name) => name.length));

/** Raised inside `run` when a shutdown began before start-up finished. */
class StartAborted extends Error {}

/**
 * Brings the platform up (Postgres, Redis, migrations, catalog, admin key, five apps) and down again in reverse
 * order, with the local workloads the scheduler started, exactly once, whether asked to by a signal or by an app
 * that crashed too often (a crashed app is restarted while the others keep running).
 */
export class PlatformRunner {
  private readonly cleanups: Array<() => Promise<void>> = [];
  private readonly abort = new AbortController();
  private readonly supervisor: Supervisor;
  private shutdownPromise: Promise<number> | undefined;
  private readonly pidServices: Record<string, number> = {};
  private readonly servicePorts: Record<string, number> = {};
  private resolveStopped: (code: number) => void = () => undefined;
  private readonly stopped = new Promise<number>((resolve) => (this.resolveStopped = resolve));

  constructor(
    private readonly config: RunnerConfig,
    private readonly out: { stdout: Writable; stderr: Writable },
  ) {
    this.supervisor = new Supervisor({
      log: (m) => this.log(m),
      out,
      graceMs: config.shutdownGraceMs,
      prefixWidth: PREFIX_WIDTH,
      restart: config.restart,
    });
    this.supervisor.onFailure((failure) => {
      void this.shutdown(1, `${failure.name} crashed ${failure.crashes} times within ${config.restart.windowMs} ms`);
    });
    this.supervisor.onRestart(() => this.recordPids());
  }

  /** Runner messages, prefixed like app output. */
  log(message: string): void {
    for (const line of message.split('\n')) this.out.stdout.write(`${'runplane'.padEnd(PREFIX_WIDTH)} | ${line}\n`);
  }

  /** Starts everything; resolves once all apps answer /readyz. Throws when start-up fails. */
  async run(): Promise<void> {
    const { config } = this;
    ensureStateDir(config.stateDir);
    await stopLeftovers({
      stateDir: config.stateDir,
      schedulerStateDir: schedulerStateDir(config),
      graceMs: config.shutdownGraceMs,
      log: (m) => this.log(m),
    });
    const { postgres, redis } = await this.startDataStores();
    const adminKey = await this.bootstrapDatabase(postgres.url);
    const encryptionKey = config.encryptionKey ?? loadOrCreateEncryptionKey(config.stateDir);
    this.startApps(postgres.url, redis.url, encryptionKey);
    await waitForReady(
      APP_NAMES.map((name) => ({ name, url: `http://${this.probeHost()}:${config.ports[name]}/readyz` })),
      config.readyTimeoutMs,
      this.abort.signal,
    );
    this.printBanner(adminKey);
  }

  /** Postgres and Redis: the configured ones, or local ones the runner starts and later stops. */
  private async startDataStores() {
    const { config } = this;
    const postgres = await this.adopt(
      resolvePostgres({
        databaseUrl: config.databaseUrl,
        localHost: '127.0.0.1',
        localPort: 5432,
        databaseName: 'runplane',
        embeddedDataDir: join(config.stateDir, STATE_FILES.postgresData),
        ensureDatabase: ensureDatabaseExists,
        log: (m) => this.log(m),
      }),
      'postgres',
    );
    const redis = await this.adopt(
      resolveRedis({
        redisUrl: config.redisUrl,
        localHost: '127.0.0.1',
        localPort: 6379,
        searchPath: config.inheritedEnv.PATH ?? '',
        log: (m) => this.log(m),
      }),
      'redis',
    );
    return { postgres, redis };
  }

  /** True once a shutdown has begun (start-up errors after that are its consequence, not its cause). */
  isStopping(): boolean {
    return this.shutdownPromise !== undefined;
  }

  /** Resolves with the exit code once a shutdown, whatever started it, has finished. */
  whenStopped(): Promise<number> {
    return this.stopped;
  }

  /** Stops everything started so far (once) and resolves with the exit code to use. */
  shutdown(code: number, reason: string): Promise<number> {
    if (this.shutdownPromise !== undefined) return this.shutdownPromise;
    this.log(`stopping (${reason})`);
    this.abort.abort();
    this.shutdownPromise = this.runCleanups().then((failed) => {
      const exitCode = failed ? Math.max(code, 1) : code;
      this.log(`stopped (exit code ${exitCode})`);
      return exitCode;
    });
    void this.shutdownPromise.then(this.resolveStopped);
    return this.shutdownPromise;
  }

  private async runCleanups(): Promise<boolean> {
    let failed = false;
    for (const cleanup of this.cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        failed = true;
        this.log(`cleanup failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return failed;
  }

  /** Registers a started service for cleanup, or stops it at once when shutdown already began. */
  private async adopt(pending: Promise<ResolvedService>, name: string): Promise<ResolvedService> {
    const service = await pending;
    if (service.pid !== undefined) {
      this.pidServices[name] = service.pid;
      // With its port, a later start tells this server from another one that reuses its pid.
      this.servicePorts[name] = Number(new URL(service.url).port);
    }
    if (this.abort.signal.aborted) {
      await service.stop();
      throw new StartAborted('start-up interrupted');
    }
    this.cleanups.push(() => service.stop());
    return service;
  }

  private async bootstrapDatabase(databaseUrl: string): Promise<{ secret: string; created: boolean }> {
    const db = createPrismaClient(databaseUrl);
    try {
      this.log('applying migrations and seeding the catalog');
      await prepareDatabase(db, databaseUrl, this.config.catalogFile);
      return await ensureAdminKey(this.config.stateDir, createAccountsServices(db));
    } finally {
      await db.$disconnect();
    }
  }

  private startApps(databaseUrl: string, redisUrl: string, encryptionKey: string): void {
    if (this.abort.signal.aborted) throw new StartAborted('start-up interrupted');
    // Cleanups run in reverse: the apps stop first, so no scheduler starts a workload once they are stopped.
    this.cleanups.push(() => this.stopWorkloads());
    this.cleanups.push(() => this.supervisor.stopAll());
    for (const launch of appLaunches(this.config, { databaseUrl, redisUrl, encryptionKey })) {
      this.supervisor.start(launch);
    }
    this.recordPids();
  }

  /** The local driver's workload processes run in their own process groups: Ctrl-C does not reach them. */
  private async stopWorkloads(): Promise<void> {
    const stopped = await stopRecordedWorkloads(schedulerStateDir(this.config), this.config.shutdownGraceMs);
    if (stopped.length > 0) this.log(`stopped local workloads: ${stopped.join(', ')}`);
  }

  /** Current pids in pids.json (rewritten when an app is restarted). */
  private recordPids(): void {
    writePids(this.config.stateDir, {
      runner: process.pid,
      apps: this.supervisor.pids(),
      services: this.pidServices,
      ports: { ...this.config.ports, ...this.servicePorts },
    });
  }

  private probeHost(): string {
    return this.config.host === '0.0.0.0' || this.config.host === '::' ? '127.0.0.1' : this.config.host;
  }

  private printBanner(adminKey: { secret: string; created: boolean }): void {
    const host = this.probeHost();
    const keyFile = join(this.config.stateDir, STATE_FILES.adminKey);
    this.log(
      [
        'Runplane is ready.',
        `  Management API (v1): http://${host}:${this.config.ports.gateway}/v1`,
        `  Job API (v2):        http://${host}:${this.config.ports['job-router']}/v2`,
        `  S3 (volumes):        http://${host}:${this.config.ports['volume-s3']}`,
        `  Admin API key:       ${adminKey.secret}`,
        `                       (${adminKey.created ? 'new, ' : ''}kept in ${keyFile})`,
        'Press Ctrl-C to stop.',
      ].join('\n'),
    );
  }
}
