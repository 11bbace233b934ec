export * from './engine';
export { type Admission, COUNT_STEP, type Refusal, SubmissionRefused } from './admission';
export { RedisJobEngine } from './redis-job-engine';
export { SUBMIT_HELPERS } from './submit-lua';
export type { EngineConnectionOptions, RedisJobEngineOptions, RedisJobEngineTuning } from './engine-options';
export { createQueueFreeRedis, createQueueOrderedRedis, type EngineConnections } from './connections';
export * from './protocol';
export {
  checkTtl,
  IDEMPOTENCY_WINDOW_MS,
  JOB_POLICY_LIMITS,
  newJobId,
  resolveJobPolicy,
  RESULT_RETENTION,
  syncRetentionMs,
  type PolicyInput,
} from './policy';
export { MAX_STREAM_CHUNK_BYTES, splitStreamOutput } from './stream-chunks';
export { JOB_EVENT_TYPES, type JobEventType } from './events';
export {
  drainedOut,
  LB_DRAIN_MAX_MS,
  LB_SNAPSHOT_STALE_MS,
  LoadBalancerTraffic,
  mergeLbSnapshots,
  type LbRouterSnapshot,
  type LbTrafficView,
} from './load-balancer-traffic';
export { LoadBalancerRequestCounts, type LbRequestCounts } from './load-balancer-counts';
export { EMPTY_VIEW, JobScalingReader, type EngineWorker, type ScalingView } from './scaling-reader';
export { WorkerRetirement } from './worker-retirement';
export { purgeEndpointJobs } from './purge-endpoint';
