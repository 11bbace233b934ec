import { execFile, spawn } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import {
  KUBE_COMPONENT_BINARIES,
  KUBE_TEST_VERSIONS,
  kubeBinaryPaths,
  kubeCacheRoot,
  kubeComponentDir,
  type KubeComponent,
  type KwokStagesManifest,
} from '@runplane/testing';
import {
  assertGoAvailable,
  assertModulePinned,
  dependencyVersion,
  goBinary,
  goEnv,
  moduleDir,
  moduleSourceDir,
  regenerateModule,
  REQUIRED_MODULES,
} from './go-modules';
import { withBuildLock } from './build-lock';

/**
 * Builds the Kubernetes test environment's binaries from their Go consumer modules into the cache
 * (`$RUNPLANE_K8S_CACHE` or ~/.cache/runplane/k8s, one folder per component and version). A
 * component is rebuilt only when a binary is missing or its `--version` does not report the pinned
 * version; a build goes to a temporary folder first, so an interrupted build never looks complete.
 */

const exec = promisify(execFile);
const COMPONENTS: readonly KubeComponent[] = ['kubernetes', 'etcd', 'kwok', 'helm', 'promtool'];

/** Go package of each binary. */
const PACKAGES: Record<string, string> = {
  'kube-apiserver': 'k8s.io/kubernetes/cmd/kube-apiserver',
  'kube-scheduler': 'k8s.io/kubernetes/cmd/kube-scheduler',
  'kube-controller-manager': 'k8s.io/kubernetes/cmd/kube-controller-manager',
  etcd: 'go.etcd.io/etcd/server/v3',
  kwok: 'sigs.k8s.io/kwok/cmd/kwok',
  helm: 'helm.sh/helm/v3/cmd/helm',
  promtool: 'github.com/prometheus/prometheus/cmd/promtool',
};

/** How a binary reports its version: helm has a `version` command instead of a flag. */
const VERSION_ARGS: Record<string, string[]> = { helm: ['version', '--short'] };

/** What `<binary> --version` prints for the pinned version. */
function expectedVersionText(component: KubeComponent): string {
  const version = KUBE_TEST_VERSIONS[component];
  if (component === 'kubernetes') return `Kubernetes ${version}`;
  if (component === 'etcd') return `etcd Version: ${version.slice(1)}`;
  return version;
}

/**
 * helm's version, and the Kubernetes version `helm template` and `helm lint` assume, are stamped at link time as its
 * Makefile does (the latter from the client-go it is built with); a plain build says v3.x-dev and Kubernetes 1.20.
 */
async function helmLdflags(): Promise<string[]> {
  const [major = '0', minor = '0'] = (await dependencyVersion('helm', 'k8s.io/client-go')).slice(1).split('.');
  const kube = `${Number(major) + 1}`;
  const flags = [`-X helm.sh/helm/v3/internal/version.version=${KUBE_TEST_VERSIONS.helm}`];
  for (const pkg of ['helm.sh/helm/v3/pkg/lint/rules', 'helm.sh/helm/v3/pkg/chartutil']) {
    flags.push(`-X ${pkg}.k8sVersionMajor=${kube}`, `-X ${pkg}.k8sVersionMinor=${minor}`);
  }
  return flags;
}

/**
 * Link-time version stamps: a plain `go build` of Kubernetes reports v0.0.0-master, and runtime
 * overrides no longer work, so /version and discovery would be wrong. kwok and etcd carry theirs in source.
 */
async function ldflags(component: KubeComponent): Promise<string> {
  const flags = ['-s', '-w'];
  if (component === 'helm') flags.push(...(await helmLdflags()));
  // A plain build of promtool reports an empty version: stamp the module version it is built from.
  if (component === 'promtool')
    flags.push(`-X github.com/prometheus/common/version.Version=${KUBE_TEST_VERSIONS.promtool}`);
  if (component === 'kubernetes') {
    const version = KUBE_TEST_VERSIONS.kubernetes;
    const [major, minor] = version.slice(1).split('.');
    for (const pkg of ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']) {
      flags.push(
        `-X ${pkg}.gitVersion=${version}`,
        `-X ${pkg}.gitMajor=${major}`,
        `-X ${pkg}.gitMinor=${minor}`,
        `-X ${pkg}.gitTreeState=clean`,
      );
    }
  }
  return flags.join(' ');
}

/**
 * kwok's default documents used by the test environment: node fast + heartbeat, pod fast, volume fast
 * (a `kwok-volume` default StorageClass whose PVCs get a PV and bind at once, no controller-manager),
 * and the chaos stages, which act only on nodes and pods labelled for them (node NotReady, a failed container).
 */
const KWOK_STAGE_FOLDERS = [
  'kustomize/stage/node/fast',
  'kustomize/stage/node/heartbeat',
  'kustomize/stage/node/chaos',
  'kustomize/stage/pod/fast',
  'kustomize/stage/pod/chaos',
  'kustomize/stage/volume/fast',
];

async function versionOutput(binary: string): Promise<string> {
  try {
    const { stdout, stderr } = await exec(binary, VERSION_ARGS[path.basename(binary)] ?? ['--version']);
    return `${stdout}${stderr}`;
  } catch (err) {
    return String(err);
  }
}

/** True when the cached binary exists and reports the component's pinned version. */
async function isBinaryUpToDate(component: KubeComponent, file: string): Promise<boolean> {
  return existsSync(file) && (await versionOutput(file)).includes(expectedVersionText(component));
}

/** True when every binary of the component exists and reports the pinned version. */
async function isUpToDate(component: KubeComponent, cacheRoot: string): Promise<boolean> {
  const bin = path.join(kubeComponentDir(component, cacheRoot), 'bin');
  for (const name of KUBE_COMPONENT_BINARIES[component])
    if (!(await isBinaryUpToDate(component, path.join(bin, name)))) return false;
  return true;
}

/** True when the manifest exists, has the current shape and every file it names is still in the module cache. */
function isCurrentStageManifest(file: string): boolean {
  try {
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as Partial<KwokStagesManifest>;
    const files = [...(manifest.stages ?? []), ...(manifest.objects ?? [])];
    const folders = new Set(files.map((name) => path.dirname(name).split('kustomize/stage/')[1]));
    return (
      KWOK_STAGE_FOLDERS.every((folder) => folders.has(folder.slice('kustomize/stage/'.length))) &&
      files.every((name) => existsSync(name))
    );
  } catch {
    return false;
  }
}

/** Progress of one `k8s:build`: where lines go, and how many modules go reported downloading. */
interface BuildProgress {
  log: (line: string) => void;
  downloads: number;
}

/** One binary to build: of which component, into which file, with which go module mode. */
interface GoBuildTarget {
  component: KubeComponent;
  binary: string;
  output: string;
  mode: 'readonly' | 'mod';
}

/** Runs `go build` for one binary, passing go's own output (module downloads, errors) through. */
async function goBuild({ component, binary, output, mode }: GoBuildTarget, progress: BuildProgress): Promise<void> {
  const args = ['build', '-trimpath', `-ldflags=${await ldflags(component)}`, '-o', output, PACKAGES[binary]!];
  return new Promise((resolve, reject) => {
    const child = spawn(goBinary(), args, {
      cwd: moduleDir(component),
      env: goEnv(mode),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let tail = '';
    const onData = (chunk: Buffer): void => {
      const text = chunk.toString('utf8');
      tail = (tail + text).slice(-8000);
      for (const line of text.split('\n')) {
        // A cold build downloads hundreds of modules: count them for the progress line instead of listing each.
        if (line.startsWith('go: downloading ')) progress.downloads += 1;
        else if (line.trim() !== '') progress.log(`  go: ${line.replace(/^go: /, '')}`);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`go build ${PACKAGES[binary]} failed (exit ${code}):\n${tail}`)),
    );
  });
}

/** Writes the stage manifest: absolute paths of kwok's default documents inside the Go module cache. */
async function writeKwokStageManifest(cacheRoot: string): Promise<void> {
  const source = await moduleSourceDir('kwok', REQUIRED_MODULES.kwok, KUBE_TEST_VERSIONS.kwok);
  const files = KWOK_STAGE_FOLDERS.flatMap((folder) =>
    readdirSync(path.join(source, folder))
      .filter((name) => name.endsWith('.yaml') && name !== 'kustomization.yaml')
      .sort()
      .map((name) => path.join(source, folder, name)),
  );
  const isStage = (file: string): boolean => (parse(readFileSync(file, 'utf8')) as { kind?: string }).kind === 'Stage';
  const manifest: KwokStagesManifest = {
    stages: files.filter(isStage),
    objects: files.filter((file) => !isStage(file)),
  };
  writeFileSync(kubeBinaryPaths(cacheRoot).kwokStagesManifest, `${JSON.stringify(manifest, null, 2)}\n`);
}

async function buildComponent(
  component: KubeComponent,
  cacheRoot: string,
  mode: 'readonly' | 'mod',
  progress: BuildProgress,
): Promise<void> {
  const dir = kubeComponentDir(component, cacheRoot);
  const staging = path.join(dir, `bin.building-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  for (const binary of KUBE_COMPONENT_BINARIES[component]) {
    // A binary added to a component (kube-controller-manager) must not cost a rebuild of the ones already cached.
    const cached = path.join(dir, 'bin', binary);
    if (mode === 'readonly' && (await isBinaryUpToDate(component, cached))) {
      linkSync(cached, path.join(staging, binary));
      continue;
    }
    progress.log(`building ${binary} (${REQUIRED_MODULES[component]} ${KUBE_TEST_VERSIONS[component]})`);
    await goBuild({ component, binary, output: path.join(staging, binary), mode }, progress);
    const reported = await versionOutput(path.join(staging, binary));
    if (!reported.includes(expectedVersionText(component))) {
      throw new Error(`${binary} --version printed "${reported.trim()}", expected "${expectedVersionText(component)}"`);
    }
  }
  rmSync(path.join(dir, 'bin'), { recursive: true, force: true });
  renameSync(staging, path.join(dir, 'bin'));
  if (component === 'kwok') await writeKwokStageManifest(cacheRoot);
}

/** Rebuilds one component, logging a line every 30 s while go works (a cold build takes minutes). */
async function buildWithHeartbeat(
  component: KubeComponent,
  { cacheRoot, updateModules, progress }: { cacheRoot: string; updateModules: boolean; progress: BuildProgress },
): Promise<void> {
  const { log } = progress;
  if (updateModules) {
    log(
      `regenerating ${path.relative(process.cwd(), moduleDir(component))}/go.mod for ${KUBE_TEST_VERSIONS[component]}`,
    );
    await regenerateModule(component);
  }
  assertModulePinned(component);
  const started = Date.now();
  const heartbeat = setInterval(() => {
    const fetched = progress.downloads > 0 ? `, ${progress.downloads} Go modules downloaded so far` : '';
    log(`  … still building ${component} (${Math.round((Date.now() - started) / 1000)} s${fetched})`);
  }, 30_000);
  try {
    await buildComponent(component, cacheRoot, updateModules ? 'mod' : 'readonly', progress);
  } finally {
    clearInterval(heartbeat);
  }
  log(`built ${component} ${KUBE_TEST_VERSIONS[component]} in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** Options for {@link ensureKubeBinaries}. */
export interface EnsureKubeBinariesOptions {
  cacheRoot?: string;
  /** Regenerate the consumer modules (go.mod, go.sum) for the pinned versions, then build. */
  updateModules?: boolean;
  log?: (line: string) => void;
}

/** Builds whatever is missing or stale; resolves with the components built (empty when all were up to date). */
export async function ensureKubeBinaries(options: EnsureKubeBinariesOptions = {}): Promise<KubeComponent[]> {
  const cacheRoot = options.cacheRoot ?? kubeCacheRoot();
  const log = options.log ?? ((line: string): void => void process.stderr.write(`${line}\n`));
  mkdirSync(cacheRoot, { recursive: true });
  return withBuildLock(cacheRoot, log, async () => {
    const updateModules = options.updateModules === true;
    const stale: KubeComponent[] = [];
    for (const component of COMPONENTS)
      if (updateModules || !(await isUpToDate(component, cacheRoot))) stale.push(component);
    const manifestStale =
      !stale.includes('kwok') && !isCurrentStageManifest(kubeBinaryPaths(cacheRoot).kwokStagesManifest);
    if (stale.length > 0 || manifestStale) await assertGoAvailable();
    if (manifestStale) {
      // Built binaries, but the stage list changed or the Go module cache was emptied: fetching kwok's module is enough.
      log(`locating kwok ${KUBE_TEST_VERSIONS.kwok} stage files in the Go module cache`);
      await writeKwokStageManifest(cacheRoot);
    }
    const built: KubeComponent[] = [];
    const progress: BuildProgress = { log, downloads: 0 };
    for (const component of stale) {
      await buildWithHeartbeat(component, { cacheRoot, updateModules, progress });
      built.push(component);
    }
    return built;
  });
}
