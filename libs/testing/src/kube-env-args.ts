import path from 'node:path';

/** Loopback ports of one control plane, all picked free at start. */
export interface KubePorts {
  etcdClient: number;
  etcdPeer: number;
  apiserver: number;
  scheduler: number;
  controllerManager: number;
  kwok: number;
}

/** Files the components share, all inside the run folder. */
export interface KubeRunFiles {
  dir: string;
  tokenFile: string;
  kubeconfig: string;
  schedulerConfig: string;
  serviceAccountPublicKey: string;
  serviceAccountPrivateKey: string;
}

/** The apiserver's self-signed serving certificate chain inside its --cert-dir. */
export function apiserverCertFile(files: KubeRunFiles): string {
  return path.join(files.dir, 'apiserver-certs', 'apiserver.crt');
}

/** etcd on loopback, data on the run folder (tmpfs when available) and no fsync: throw-away test data. */
export function etcdArgs(files: KubeRunFiles, ports: KubePorts): string[] {
  const client = `http://127.0.0.1:${ports.etcdClient}`;
  const peer = `http://127.0.0.1:${ports.etcdPeer}`;
  return [
    '--name=runplane-test',
    `--data-dir=${path.join(files.dir, 'etcd')}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=runplane-test=${peer}`,
    '--unsafe-no-fsync',
    '--log-level=warn',
  ];
}

/**
 * kube-apiserver flags in the spirit of envtest: loopback only, token auth (group system:masters),
 * Node and RBAC authorization as a real cluster's, a self-signed serving certificate, and the default
 * admission chain (Priority, DefaultTolerationSeconds, …) minus the plugins that count on controllers
 * this environment does not run (see {@link controllerManagerArgs}): ServiceAccount (nothing creates
 * the `default` service account), TaintNodesByCondition (nothing would lift the not-ready taint it
 * puts on new nodes once kwok reports them Ready) and StorageObjectInUseProtection (nothing would
 * remove its PVC/PV finalizers, so a deleted claim would never go; without them it goes at once and
 * its volume stays). No priority-and-fairness throttling: many test files share one server.
 */
export function apiserverArgs(files: KubeRunFiles, ports: KubePorts): string[] {
  return [
    `--etcd-servers=http://127.0.0.1:${ports.etcdClient}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${ports.apiserver}`,
    `--cert-dir=${path.dirname(apiserverCertFile(files))}`,
    `--token-auth-file=${files.tokenFile}`,
    '--authorization-mode=Node,RBAC',
    `--service-account-issuer=https://127.0.0.1:${ports.apiserver}`,
    `--service-account-key-file=${files.serviceAccountPublicKey}`,
    `--service-account-signing-key-file=${files.serviceAccountPrivateKey}`,
    '--service-cluster-ip-range=10.0.0.0/24',
    '--allow-privileged=true',
    '--disable-admission-plugins=ServiceAccount,TaintNodesByCondition,StorageObjectInUseProtection',
    '--endpoint-reconciler-type=none',
    '--enable-priority-and-fairness=false',
    '--max-requests-inflight=0',
    '--max-mutating-requests-inflight=0',
    '--profiling=false',
    // kwok's nodes advertise their InternalIP (loopback) and kwok's own port as the kubelet: pods/log reaches kwok.
    '--kubelet-preferred-address-types=InternalIP',
  ];
}

/** kube-scheduler with the run's KubeSchedulerConfiguration; its health endpoints need no credentials. */
export function schedulerArgs(files: KubeRunFiles, ports: KubePorts): string[] {
  return [
    `--config=${files.schedulerConfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${ports.scheduler}`,
    `--authentication-kubeconfig=${files.kubeconfig}`,
    `--authorization-kubeconfig=${files.kubeconfig}`,
    '--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics',
  ];
}

/**
 * The kube-controller-manager controllers the environment runs: what Deployments, ReplicaSets, Jobs and
 * PodDisruptionBudgets need to behave as in a real cluster, plus the garbage collector, which deletes what
 * an object owned (a Deployment's ReplicaSets and their pods, a Job's pods) once its owner is gone. Left
 * off on purpose, as tests count on their absence: namespace (test helpers clean namespaces up), nodelifecycle
 * (it would taint and evict the pods of nodes the chaos stages mark NotReady), podgc (it would delete
 * the pods of a deleted node pool), persistentvolume-binder and -protection (kwok binds volumes; a
 * deleted claim leaves its volume), serviceaccount and its token controllers (no `default` account).
 */
export const CONTROLLERS = ['deployment', 'replicaset', 'job', 'disruption', 'garbagecollector'] as const;

/**
 * kube-controller-manager with the same admin kubeconfig as kube-scheduler, acting with its own
 * credentials rather than one service account per controller, and no leader election (one instance).
 */
export function controllerManagerArgs(files: KubeRunFiles, ports: KubePorts): string[] {
  return [
    `--kubeconfig=${files.kubeconfig}`,
    `--authentication-kubeconfig=${files.kubeconfig}`,
    `--authorization-kubeconfig=${files.kubeconfig}`,
    '--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics',
    '--bind-address=127.0.0.1',
    `--secure-port=${ports.controllerManager}`,
    `--controllers=${CONTROLLERS.join(',')}`,
    '--use-service-account-credentials=false',
    '--leader-elect=false',
    '--kube-api-qps=200',
    '--kube-api-burst=400',
    '--concurrent-gc-syncs=5',
  ];
}

/** Annotation that hands a Node to the kwok controller. */
export const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';

/**
 * The kwok controller: manages only Nodes annotated `kwok.x-k8s.io/node=fake` (and their pods),
 * driven by kwok's default Stage documents, one --config per file (node, pod and volume stages).
 */
export function kwokArgs(files: KubeRunFiles, ports: KubePorts, stageFiles: readonly string[]): string[] {
  return [
    `--kubeconfig=${files.kubeconfig}`,
    `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=fake`,
    `--server-address=127.0.0.1:${ports.kwok}`,
    // Nodes without an address get loopback and kwok's port as their kubelet endpoint (kwok serves TLS and HTTP there).
    '--node-ip=127.0.0.1',
    `--node-port=${ports.kwok}`,
    '--cidr=10.244.0.0/16',
    ...stageFiles.map((file) => `--config=${file}`),
    `--config=${kwokLogsConfigFile(files.dir)}`,
  ];
}

/** The file every kwok pod's containers log from (CRI format: `<RFC 3339> stdout F <line>`), in the run folder. */
export function kwokContainerLogFile(runDir: string): string {
  return path.join(runDir, 'kwok-container.log');
}

/** kwok's ClusterLogs document: every container of every pod serves {@link kwokContainerLogFile}. */
export function kwokLogsConfigFile(runDir: string): string {
  return path.join(runDir, 'kwok-logs.yaml');
}

/** The text of {@link kwokLogsConfigFile}. */
export function kwokLogsConfig(runDir: string): string {
  return [
    'apiVersion: kwok.x-k8s.io/v1alpha1',
    'kind: ClusterLogs',
    'metadata:',
    '  name: container-log',
    'spec:',
    '  logs:',
    `    - logsFile: ${JSON.stringify(kwokContainerLogFile(runDir))}`,
    '      follow: true',
    '',
  ].join('\n');
}
