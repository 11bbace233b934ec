export { cleanupRedisPrefix, testRedisPrefix } from './redis';
export {
  getFreePort,
  getFreePorts,
  isPortOpen,
  isProcessAlive,
  type ProcessGroup,
  signalProcessGroup,
  spawnProcessGroup,
  stopProcessGroup,
} from './process';
export {
  createTestDatabase,
  dropStaleTestDatabases,
  prepareTemplateDatabase,
  TEMPLATE_DATABASE,
  type TestDatabase,
} from './database';
export { pollUntil, type PollOptions } from './poll';
export { type AnsweredCalls, countAnswered } from './counted-calls';
export { type ApiAnswer, callWithKey } from './api-call';
export { TcpProxy } from './tcp-proxy';
export { createTestStores, TEST_REDIS_URL, type TestStores } from './test-stores';
export { servedRoutes } from './served-routes';
export { answerOf, type RawAnswer, sendRaw, trickleUntilAnswered } from './raw-http';
export { FakeClock } from './clock';
export { ECHO_WORKER_TEMPLATE } from './echo-worker';
export { default as prepareTestDatabases } from './jest-global-setup';
export {
  createTestNamespace,
  kubeTestEnv,
  type KubeTestEnv,
  registerNodePools,
  type RegisterNodePoolsOptions,
  removeNodePool,
  TEST_KUBECONFIG_ENV,
  type TestNamespace,
} from './kube-env';
export { connectionFromKubeconfig, KubeApiError, type KubeConnection, KubeTestClient } from './kube-env-client';
export {
  defaultKubeRunsDir,
  type KubeControlPlane,
  type KubeControlPlaneOptions,
  startKubeControlPlane,
} from './kube-env-launcher';
export {
  buildPoolNode,
  DEFAULT_NODE_POOLS_FILE,
  gfdProductName,
  GPU_PRODUCT_LABEL,
  GPU_RESOURCE,
  KWOK_NODE_NOT_READY_LABEL,
  KWOK_POD_FAILED_LABEL,
  loadNodePools,
  NODE_POOL_LABEL,
  type NodePoolSpec,
  POOL_NAME_LABEL,
} from './kube-env-pools';
export {
  KUBE_BUILD_HINT,
  KUBE_COMPONENT_BINARIES,
  KUBE_TEST_VERSIONS,
  kubeBinaryPaths,
  type KubeBinaryPaths,
  kubeCacheRoot,
  kubeComponentDir,
  type KubeComponent,
  type KwokStagesManifest,
} from './kube-env-versions';
export * from './fuzz';
export { kwokContainerLogFile } from './kube-env-args';
export { podUsageEvent, type PodUsageEventKey } from './usage-events';
