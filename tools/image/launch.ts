/**
 * Starts Runplane's services the way the image runs them (`node dist/apps/<app>/main.js` in the image's WORKDIR,
 * with the image's ENV and nothing of the caller's environment) or, for comparison, the way development does
 * (`node -r @swc-node/register apps/<app>/src/main.ts` in the checkout). Used by the image test and the RSS
 * measurement (tools/image/measure-rss.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';

/** The five services, in start order (as `npm start` starts them). */
export const SERVICES = ['gateway', 'job-router', 'scheduler', 'webhook-dispatcher', 'billing-aggregator'] as const;
export type ServiceName = (typeof SERVICES)[number];

export const REPO_ROOT = resolve(__dirname, '..', '..');

/** What every service of one platform shares. */
export interface PlatformSettings {
  /** `dist`: the image's tree at `appDir`; `source`: this checkout through the SWC loader. */
  mode: 'dist' | 'source';
  appDir: string;
  /** The image's ENV (NODE_ENV, HOME, …), set before the settings below. */
  imageEnv: Record<string, string>;
  /** `dist` only: the flags the image's command gives `node` before the script (V8 memory settings). */
  nodeFlags?: string[];
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  encryptionKey: string;
  ports: Record<ServiceName, number>;
  /** The scheduler's local driver: where it keeps pid files, and where relative worker commands run. */
  schedulerStateDir: string;
  workerDir: string;
  /** The `node` that runs the services (default this process's own); `dist` mode gives the image's. */
  node?: string;
  /** Run as this user (only root may); the image runs as 10001:10001. */
  user?: { uid: number; gid: number };
}

/** The command line of a service: the image's contract (with its node flags), or the development loader. */
export function serviceCommand(name: ServiceName, mode: PlatformSettings['mode'], nodeFlags: string[] = []): string[] {
  return mode === 'dist'
    ? [...nodeFlags, join('dist', 'apps', name, 'main.js')]
    : ['-r', '@swc-node/register', join('apps', name, 'src', 'main.ts')];
}

/** A closed environment: the image's ENV plus the documented service variables, never the caller's. */
export function serviceEnv(name: ServiceName, settings: PlatformSettings): Record<string, string> {
  const env: Record<string, string> = {
    // Node's own directory first, as `node` is on the image's PATH.
    PATH: [dirname(settings.node ?? process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    ...settings.imageEnv,
    HOST: '127.0.0.1',
    PORT: String(settings.ports[name]),
    DATABASE_URL: settings.databaseUrl,
    REDIS_URL: settings.redisUrl,
    REDIS_PREFIX: settings.redisPrefix,
    LOG_LEVEL: 'warn',
  };
  if (name === 'gateway' || name === 'webhook-dispatcher') env.RUNPLANE_ENCRYPTION_KEY = settings.encryptionKey;
  if (name === 'scheduler') {
    Object.assign(env, {
      SCHEDULER_DRIVER: 'local',
      SCHEDULER_JOB_API_URL: `http://127.0.0.1:${settings.ports['job-router']}`,
      SCHEDULER_STATE_DIR: settings.schedulerStateDir,
      SCHEDULER_WORK_DIR: settings.workerDir,
    });
  }
  return env;
}

/** A started service and its output so far. */
export interface RunningService {
  name: ServiceName;
  child: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts one service (not waiting for it to be ready). */
export function startService(name: ServiceName, settings: PlatformSettings): RunningService {
  const cwd = settings.mode === 'dist' ? settings.appDir : REPO_ROOT;
  const child = spawn(settings.node ?? process.execPath, serviceCommand(name, settings.mode, settings.nodeFlags), {
    cwd,
    env: serviceEnv(name, settings),
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(settings.user ?? {}),
  });
  let output = '';
  const collect = (chunk: Buffer): void => void (output += chunk.toString('utf8'));
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    child.once('exit', (code, signal) => done({ code, signal }));
  });
  return { name, child, output: () => output, exited };
}

/** Resolves true once `GET /readyz` answers 200; false while it does not answer or is not ready. */
export async function isReady(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/readyz`);
    await response.body?.cancel();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** SIGTERM, as Kubernetes stops a pod (tini passes it on); resolves with how the service exited. */
export async function stopService(
  service: RunningService,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGTERM');
  return service.exited;
}
