export {
  noCapacityMessage,
  placeMany,
  placePod,
  type BatchPlacement,
  type InventoryMachine,
  type NoCapacityReason,
  type PlacementCloudType,
  type PlacementRequest,
  type PlacementResult,
  type SelectionPriority,
} from './placement';
export {
  desiredWorkerCount,
  replacementBackoffMs,
  requestScalingPlan,
  scalingPlan,
  workersToRemove,
  type QueueSignals,
  type RequestSignals,
  type ScalingDecision,
  type ScalerType,
  type ScalingSettings,
  type ScalingWorker,
} from './autoscaler';
export {
  CapacityRepository,
  type MachineLocation,
  type PlacementTransaction,
  type Reservation,
} from './capacity.repository';
export { MachinesRepository, type ReportedMachine } from './machines.repository';
