export {
  type PagedPod,
  PodRepository,
  type PodFilter,
  type PodPosition,
  type PodRelations,
  type PodRow,
} from './pod.repository';
export { PodsService, type PodLifecycleAction } from './pods.service';
export { type PodTemplate, type PodTemplateSource } from './pod-create';
export {
  applyPodAction,
  applyPodUpdate,
  resetFields,
  type DesiredStatus,
  type LifecycleChange,
  type LifecycleState,
  type PodAction,
  type PodContainerSpec,
} from './pod-lifecycle';
export { type PodPlacementClient, type PodPlacementReply, unbookedPlacement } from './pod-placement';
export {
  adjustedCostPerHr,
  chooseGpuType,
  offeredGpuTypes,
  gpuHourlyPrice,
  type PodCatalog,
  type PodCpuFlavor,
  type PodGpuType,
} from './pod-pricing';
export { type ColdStartRecord, ColdStartsRepository, type ColdStartRow } from './cold-starts.repository';
export { PodsStateRepository, type ObservedFields, type PodRecord, type PodState } from './pods-state.repository';
export { WorkloadExtrasRepository, type WorkloadExtrasRow } from './workload-extras.repository';
export { createWorkloadExtrasReader, WorkloadExtrasReader, type WorkloadExtras } from './workload-extras';
