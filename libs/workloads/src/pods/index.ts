export { PodRepository, type PodFilter, type PodRow } from './pod.repository';
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
export { adjustedCostPerHr, chooseGpuType, gpuHourlyPrice, type PodCatalog, type PodCpuFlavor, type PodGpuType } from './pod-pricing';
