export { createKubeClients, loadKubeConfig } from './client';
export type { CreateKubeClientsOptions, KubeClients, KubeConfigSource } from './client';
export { withKubeObserver } from './observer';
export type { KubeObserver, KubeRequestRecord } from './observer';
export { KubeRateLimiter, RateLimiterClosedError } from './rate-limiter';
export type { RateLimitOptions } from './rate-limiter';
export { isConflict, isGone, isNotFound, kubeErrorMessage, kubeStatusOf } from './errors';
export { applyObject, mergePatchOptions, strategicMergePatchOptions } from './patch';
export {
  baseLabels,
  GENERATION_ANNOTATION,
  GFD_LABELS,
  GPU_RESOURCE,
  LABELS,
  MANAGED_BY,
  MANAGED_SELECTOR,
  PRIORITY_CLASS_NAMES,
  TOPOLOGY_LABELS,
} from './labels';
export type { WorkloadKind } from './labels';
export { kubeNames } from './names';
export { parsePorts } from './builders/ports';
export type { ExposedPort } from './builders/ports';
export { buildWorkloadPod, WORKLOAD_CONTAINER } from './builders/workload-pod';
export type { SecretEnvVar, WorkloadPodInput, WorkloadVolume } from './builders/workload-pod';
export { buildVolumeClaim } from './builders/volume-claim';
export { buildVolumeS3Objects, VOLUME_S3_PORT, volumeS3Names } from './builders/volume-s3';
export type { VolumeS3Input, VolumeS3Objects } from './builders/volume-s3';
export type { VolumeClaimInput } from './builders/volume-claim';
export { buildPullSecret, DOCKER_HUB_KEY, registryOfImage } from './builders/pull-secret';
export type { PullSecretInput } from './builders/pull-secret';
export { buildHttpService, buildPortService } from './builders/port-service';
export type { PortServiceInput } from './builders/port-service';
export { buildPriorityClasses, INTERRUPTIBLE_PRIORITY, ON_DEMAND_PRIORITY } from './builders/priority-classes';
export { readPodStatus } from './readers/pod-status';
export type { ObservedPodPhase, ObservedPodStatus } from './readers/pod-status';
export { nodeAddress, readPublishedPorts } from './readers/port-mappings';
export type { PublishedPorts } from './readers/port-mappings';
export { readNodeMachine } from './readers/node-machine';
export type { NodeMachine } from './readers/node-machine';
export { parseQuantity } from './readers/quantity';
export { DEFAULT_BACKOFF, ExponentialBackoff } from './backoff';
export type { BackoffOptions } from './backoff';
export { InformerSupervisor, watchResource } from './informer';
export type { ListQuery, ResourceWatch, SupervisedInformer, WatchResourceOptions } from './informer';
export { LeaderElector } from './leader-election';
export type { Clock, LeaderElectorOptions, LeaseApi } from './leader-election';
/** The Kubernetes object types Runplane's kube code reads and writes, so callers need not import the client package. */
export type {
  KubernetesListObject,
  KubernetesObject,
  V1Node,
  V1PersistentVolumeClaim,
  V1Pod,
  V1Secret,
  V1Service,
} from '@kubernetes/client-node';
export { eventTime, followContainerLog, watchPodEvents } from './pod-logs';
export type { ContainerLogOptions, KubeStreamHandle, PodEventsOptions } from './pod-logs';
export type { CoreV1Event } from '@kubernetes/client-node';
