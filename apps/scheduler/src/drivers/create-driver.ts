import type { DbClient } from '@runplane/db';
import type { KubeObserver } from '@runplane/kube';
import type { SchedulerConfig } from '../config';
import type { ComputeDriver } from './compute-driver';
import type { createKubernetesDriver } from './kubernetes/create-kubernetes-driver';
import { LocalDriver } from './local/local-driver';
import { defaultLocalMachines } from './local/local-inventory';

/** Variables of the scheduler's environment that local workloads inherit; nothing else (no DATABASE_URL) leaks. */
const INHERITED = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'USER'];

/**
 * The Kubernetes driver's module, loaded only when that driver is chosen: its client library holds ~45 MB a
 * scheduler on the local driver never uses.
 */
function loadKubernetesDriver(): typeof createKubernetesDriver {
  type DriverModule = typeof import('./kubernetes/create-kubernetes-driver');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const driver = require('./kubernetes/create-kubernetes-driver') as DriverModule;
  return driver.createKubernetesDriver;
}

/** Builds the driver with `observer` told about its Kubernetes clients' traffic (loads the client library, like it). */
function observedBuild<T>(observer: KubeObserver | undefined, build: () => T): T {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('@runplane/kube') as typeof import('@runplane/kube')).withKubeObserver(observer, build);
}

/** The configured compute driver; `kubeObserver` counts the Kubernetes driver's API requests and watch restarts. */
export function createDriver(
  config: SchedulerConfig,
  env: NodeJS.ProcessEnv = process.env,
  db?: DbClient,
  kubeObserver?: KubeObserver,
): ComputeDriver {
  switch (config.SCHEDULER_DRIVER) {
    case 'local':
      return new LocalDriver({
        stateDir: config.SCHEDULER_STATE_DIR,
        workDir: config.SCHEDULER_WORK_DIR,
        volumesDir: config.SCHEDULER_VOLUMES_DIR,
        machines:
          config.SCHEDULER_LOCAL_MACHINES?.map((machine) => ({ ...machine, ready: true, labels: {} })) ??
          defaultLocalMachines(config.SCHEDULER_LOCAL_DATA_CENTER),
        stopGraceMs: config.SCHEDULER_STOP_GRACE_MS,
        inheritedEnv: Object.fromEntries(
          INHERITED.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name] as string]])),
        ),
      });
    case 'kubernetes':
      if (!db) throw new Error('SCHEDULER_DRIVER=kubernetes needs the database (Pod volumes and registry auths)');
      return observedBuild(kubeObserver, () => loadKubernetesDriver()(config, db));
  }
}
