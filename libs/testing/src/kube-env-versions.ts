import { homedir } from 'node:os';
import path from 'node:path';

/**
 * The pinned versions of the Kubernetes test environment. Each component is built from its own Go
 * consumer module under tools/k8s-testenv/go/<component> (`npm run k8s:build`), and its binaries are
 * cached outside the repository in a folder named after the component and its version.
 */
export const KUBE_TEST_VERSIONS = {
  /** kube-apiserver, kube-scheduler and kube-controller-manager (k8s.io/kubernetes). */
  kubernetes: 'v1.34.4',
  /** etcd, the apiserver's storage (go.etcd.io/etcd/server/v3); 3.6 is the line Kubernetes 1.34 ships with. */
  etcd: 'v3.6.16',
  /** The standalone kwok controller (sigs.k8s.io/kwok), which plays kubelet for fake nodes. */
  kwok: 'v0.8.0',
  /** helm (helm.sh/helm/v3), which lints and renders the chart in helm/runplane. */
  helm: 'v3.22.0',
  /** promtool (github.com/prometheus/prometheus, whose Go module numbers Prometheus 3.16 v0.316), which checks and
   * unit-tests the alerting rules in deploy/prometheus. */
  promtool: 'v0.316.0',
} as const;

/** A component of the test environment: the Go module it comes from and the binaries it provides. */
export type KubeComponent = keyof typeof KUBE_TEST_VERSIONS;

/** Binaries each component provides, in the order they are built. */
export const KUBE_COMPONENT_BINARIES: Record<KubeComponent, readonly string[]> = {
  kubernetes: ['kube-apiserver', 'kube-scheduler', 'kube-controller-manager'],
  etcd: ['etcd'],
  kwok: ['kwok'],
  helm: ['helm'],
  promtool: ['promtool'],
};

/** Where built binaries are cached: `$RUNPLANE_K8S_CACHE`, else `~/.cache/runplane/k8s`. */
export function kubeCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env['RUNPLANE_K8S_CACHE'];
  return configured !== undefined && configured !== ''
    ? path.resolve(configured)
    : path.join(homedir(), '.cache', 'runplane', 'k8s');
}

/** The cache folder of one component at its pinned version, e.g. `<cache>/kubernetes-v1.34.4`. */
export function kubeComponentDir(component: KubeComponent, cacheRoot = kubeCacheRoot()): string {
  return path.join(cacheRoot, `${component}-${KUBE_TEST_VERSIONS[component]}`);
}

/**
 * A file written next to kwok's binaries by the build ({@link KwokStagesManifest}): the absolute paths
 * of kwok's default documents inside the Go module cache (they ship in the kwok module zip, so
 * nothing is copied).
 */
export const KWOK_STAGES_MANIFEST = 'stages.json';

/** Contents of {@link KWOK_STAGES_MANIFEST}. */
export interface KwokStagesManifest {
  /** Stage documents for the kwok controller's --config. */
  stages: string[];
  /** Other objects the stages rely on, created through the API (the `kwok-volume` StorageClass). */
  objects: string[];
}

/** Absolute paths of every binary the control plane runs, plus kwok's stage manifest. */
export interface KubeBinaryPaths {
  kubeApiserver: string;
  kubeScheduler: string;
  kubeControllerManager: string;
  etcd: string;
  kwok: string;
  kwokStagesManifest: string;
  helm: string;
  promtool: string;
}

/** Paths of the cached binaries for the pinned versions (they may not exist yet). */
export function kubeBinaryPaths(cacheRoot = kubeCacheRoot()): KubeBinaryPaths {
  const bin = (component: KubeComponent, name: string): string =>
    path.join(kubeComponentDir(component, cacheRoot), 'bin', name);
  return {
    kubeApiserver: bin('kubernetes', 'kube-apiserver'),
    kubeScheduler: bin('kubernetes', 'kube-scheduler'),
    kubeControllerManager: bin('kubernetes', 'kube-controller-manager'),
    etcd: bin('etcd', 'etcd'),
    kwok: bin('kwok', 'kwok'),
    kwokStagesManifest: path.join(kubeComponentDir('kwok', cacheRoot), KWOK_STAGES_MANIFEST),
    helm: bin('helm', 'helm'),
    promtool: bin('promtool', 'promtool'),
  };
}

/** The hint every "environment missing" error ends with. */
export const KUBE_BUILD_HINT =
  'Build the Kubernetes test environment with `npm run k8s:build` (a cold build takes several minutes).';
