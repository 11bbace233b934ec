import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import {
  apiserverArgs,
  apiserverCertFile,
  controllerManagerArgs,
  etcdArgs,
  kwokArgs,
  kwokContainerLogFile,
  kwokLogsConfig,
  kwokLogsConfigFile,
  type KubePorts,
  type KubeRunFiles,
  schedulerArgs,
} from './kube-env-args';
import { type KubeConnection, KubeTestClient } from './kube-env-client';
import {
  caFromSelfSignedChain,
  kubeconfigYaml,
  schedulerConfigYaml,
  writeServiceAccountKeys,
  writeTokenFile,
} from './kube-env-config';
import { ComponentExited, httpOk, insecureLoopbackOk, type KubeProcessName, RunProcesses } from './kube-env-processes';
import { sweepStaleRuns, writeRunOwner } from './kube-env-runs';
import { KUBE_BUILD_HINT, kubeBinaryPaths, type KubeBinaryPaths, type KwokStagesManifest } from './kube-env-versions';
import { getFreePorts, type ProcessGroup } from './process';

/** A running throw-away control plane: etcd, kube-apiserver, kube-scheduler, kube-controller-manager and the kwok controller. */
export interface KubeControlPlane {
  /** The run folder (kubeconfig, certificates, etcd data); removed on stop. */
  dir: string;
  kubeconfigPath: string;
  kubeconfig: string;
  connection: KubeConnection;
  /** kube-apiserver's /version gitVersion, e.g. v1.34.4. */
  version: string;
  processes: Readonly<Record<KubeProcessName, ProcessGroup>>;
  /** Stops every process (process groups, reverse start order) and removes the run folder. */
  stop(): Promise<void>;
}

/** Options for {@link startKubeControlPlane}. */
export interface KubeControlPlaneOptions {
  binaries?: KubeBinaryPaths;
  /** Parent of the run folder: /dev/shm (tmpfs) when writable, else the OS temp folder. */
  baseDir?: string;
  /** Give up when a component is not healthy within this long (default 120 s). */
  startTimeoutMs?: number;
  /** Progress lines (default: none). */
  log?: (message: string) => void;
  /** Picks the six loopback ports (default: free ones); a start whose port is taken retries with new ones. */
  pickPorts?: (count: number) => Promise<number[]>;
}

/** The run folders of all control planes live here, so a later start can sweep leftovers. */
export function defaultKubeRunsDir(): string {
  const shm = '/dev/shm';
  const base = existsSync(shm) ? shm : tmpdir();
  return path.join(base, 'runplane-k8s');
}

/** Reads kwok's stage manifest written by the build and checks every binary and file is there. */
function requireBuiltEnvironment(binaries: KubeBinaryPaths): KwokStagesManifest {
  const missing = [
    binaries.kubeApiserver,
    binaries.kubeScheduler,
    binaries.kubeControllerManager,
    binaries.etcd,
    binaries.kwok,
    binaries.kwokStagesManifest,
  ].filter((file) => !existsSync(file));
  if (missing.length > 0)
    throw new Error(`Kubernetes test environment not built (missing ${missing.join(', ')}). ${KUBE_BUILD_HINT}`);
  const manifest = JSON.parse(readFileSync(binaries.kwokStagesManifest, 'utf8')) as Partial<KwokStagesManifest>;
  if (!Array.isArray(manifest.stages) || !Array.isArray(manifest.objects)) {
    throw new Error(`${binaries.kwokStagesManifest} is from an older build. ${KUBE_BUILD_HINT}`);
  }
  const gone = [...manifest.stages, ...manifest.objects].filter((file) => !existsSync(file));
  if (gone.length > 0)
    throw new Error(`kwok stage files are gone from the Go module cache (${gone[0]}). ${KUBE_BUILD_HINT}`);
  return { stages: manifest.stages, objects: manifest.objects };
}

/** API collection paths of the kinds kwok's default documents create (a StorageClass for volume stages). */
const COLLECTIONS: Record<string, string> = { StorageClass: '/apis/storage.k8s.io/v1/storageclasses' };

/** Creates the objects kwok's stages rely on, e.g. the `kwok-volume` StorageClass. */
async function createStageObjects(client: KubeTestClient, files: readonly string[]): Promise<void> {
  for (const file of files) {
    const object = parse(readFileSync(file, 'utf8')) as { kind: string };
    const collection = COLLECTIONS[object.kind];
    if (collection === undefined) throw new Error(`${file}: no API path known for kind ${object.kind}`);
    await client.create(collection, object);
  }
}

/**
 * Starts a control plane on loopback with free ports and resolves once every component is healthy:
 * etcd → kube-apiserver (/readyz) → kube-scheduler, kube-controller-manager and kwok (/healthz). Writes a kubeconfig with an
 * admin token. On any failure everything already started is stopped and the error carries the
 * failing component's output.
 */
export async function startKubeControlPlane(options: KubeControlPlaneOptions = {}): Promise<KubeControlPlane> {
  // Ports are picked free and bound a moment later; on a shared machine another process may win one.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (err) {
      if (!(err instanceof ComponentExited && err.portTaken) || attempt === 3) throw err;
      options.log?.(`${err.component} found its port taken; starting again on other ports`);
    }
  }
}

/** One start attempt's run: its folder and files, ports, processes and the binaries it starts. */
interface Run {
  files: KubeRunFiles;
  token: string;
  ports: KubePorts;
  processes: RunProcesses;
  binaries: KubeBinaryPaths;
  manifest: KwokStagesManifest;
  log: (message: string) => void;
}

async function pickPorts(options: KubeControlPlaneOptions): Promise<KubePorts> {
  const [etcdClient, etcdPeer, apiserver, scheduler, controllerManager, kwok] = await (
    options.pickPorts ?? getFreePorts
  )(6);
  return {
    etcdClient: etcdClient!,
    etcdPeer: etcdPeer!,
    apiserver: apiserver!,
    scheduler: scheduler!,
    controllerManager: controllerManager!,
    kwok: kwok!,
  };
}

/** etcd, then kube-apiserver; resolves with the admin connection once the apiserver is ready, its kubeconfig written. */
async function startApiserver({ files, token, ports, processes, binaries, log }: Run) {
  log(`starting etcd on 127.0.0.1:${ports.etcdClient}`);
  processes.spawn('etcd', binaries.etcd, etcdArgs(files, ports));
  await processes.waitHealthy('etcd', () => httpOk(`http://127.0.0.1:${ports.etcdClient}/health`));
  log(`starting kube-apiserver on https://127.0.0.1:${ports.apiserver}`);
  processes.spawn('kube-apiserver', binaries.kubeApiserver, apiserverArgs(files, ports));
  const connection = await waitForApiserver(
    files,
    { server: `https://127.0.0.1:${ports.apiserver}`, token },
    processes,
  );
  const kubeconfig = kubeconfigYaml(connection.server, connection.caPem, connection.token);
  writeFileSync(files.kubeconfig, kubeconfig, { mode: 0o600 });
  return { connection, kubeconfig };
}

/** kube-scheduler, kube-controller-manager and kwok (after kwok's stage objects); resolves once all are healthy. */
async function startNodeComponents(run: Run, connection: KubeConnection): Promise<void> {
  const { files, ports, processes, binaries, manifest } = run;
  run.log('starting kube-scheduler, kube-controller-manager and kwok');
  writeFileSync(files.schedulerConfig, schedulerConfigYaml(files.kubeconfig));
  processes.spawn('kube-scheduler', binaries.kubeScheduler, schedulerArgs(files, ports));
  processes.spawn('kube-controller-manager', binaries.kubeControllerManager, controllerManagerArgs(files, ports));
  await createStageObjects(new KubeTestClient(connection), manifest.objects);
  processes.spawn('kwok', binaries.kwok, kwokArgs(files, ports, manifest.stages));
  await processes.waitHealthy('kube-scheduler', () =>
    insecureLoopbackOk(`https://127.0.0.1:${ports.scheduler}/healthz`),
  );
  await processes.waitHealthy('kube-controller-manager', () =>
    insecureLoopbackOk(`https://127.0.0.1:${ports.controllerManager}/healthz`),
  );
  await processes.waitHealthy('kwok', () => httpOk(`http://127.0.0.1:${ports.kwok}/healthz`));
}

async function startOnce(options: KubeControlPlaneOptions): Promise<KubeControlPlane> {
  const binaries = options.binaries ?? kubeBinaryPaths();
  const manifest = requireBuiltEnvironment(binaries);
  const log = options.log ?? ((): void => undefined);
  const dir = createRunDir(options.baseDir ?? defaultKubeRunsDir(), log);
  const { files, token } = prepareRunFiles(dir);
  const ports = await pickPorts(options);
  const processes = new RunProcesses(dir, options.startTimeoutMs ?? 120_000);
  const stop = async (): Promise<void> => {
    await processes.stopAll();
    rmSync(dir, { recursive: true, force: true });
  };
  const run: Run = { files, token, ports, processes, binaries, manifest, log };
  try {
    const { connection, kubeconfig } = await startApiserver(run);
    await startNodeComponents(run, connection);
    const version = (await new KubeTestClient(connection).get<{ gitVersion: string }>('/version')).gitVersion;
    log(`control plane ${version} ready, kubeconfig ${files.kubeconfig}`);
    const kubeconfigPath = files.kubeconfig;
    return { dir, kubeconfigPath, kubeconfig, connection, version, processes: processes.byName(), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Sweeps runs left by dead owners, then creates this run's folder, owned by this process. */
function createRunDir(runsDir: string, log: (message: string) => void): string {
  mkdirSync(runsDir, { recursive: true });
  const swept = sweepStaleRuns(runsDir);
  if (swept.length > 0) log(`removed ${swept.length} control plane(s) left behind by exited runs`);
  const dir = mkdtempSync(path.join(runsDir, 'run-'));
  writeRunOwner(dir, process.pid);
  return dir;
}

/** Writes the credentials the apiserver reads at start (admin token, service account keys). */
function prepareRunFiles(dir: string): { files: KubeRunFiles; token: string } {
  const keys = writeServiceAccountKeys(dir);
  const files: KubeRunFiles = {
    dir,
    tokenFile: path.join(dir, 'tokens.csv'),
    kubeconfig: path.join(dir, 'kubeconfig.yaml'),
    schedulerConfig: path.join(dir, 'kube-scheduler.yaml'),
    serviceAccountPublicKey: keys.publicKeyFile,
    serviceAccountPrivateKey: keys.privateKeyFile,
  };
  // Container logs kwok serves as every pod's kubelet (pods/log): empty until a test appends lines.
  writeFileSync(kwokLogsConfigFile(dir), kwokLogsConfig(dir));
  writeFileSync(kwokContainerLogFile(dir), '');
  return { files, token: writeTokenFile(files.tokenFile) };
}

/**
 * Waits for /readyz answered over TLS pinned to the CA of the apiserver's self-signed certificate
 * (read afresh on every attempt: the file may still be being written).
 */
async function waitForApiserver(
  files: KubeRunFiles,
  connection: Omit<KubeConnection, 'caPem'>,
  processes: RunProcesses,
): Promise<KubeConnection> {
  let ready: KubeConnection | undefined;
  await processes.waitHealthy('kube-apiserver', async () => {
    const candidate = { ...connection, caPem: caFromSelfSignedChain(readFileSync(apiserverCertFile(files), 'utf8')) };
    if ((await new KubeTestClient(candidate).text('/readyz')) !== 'ok') return false;
    ready = candidate;
    return true;
  });
  return ready!;
}
