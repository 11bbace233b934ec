import type { EndpointDto, EndpointWorkerStateDto, PodDto } from '@runplane/contracts';
import type { ListWorkersResponse, WorkerStatus, WorkerView } from './serverless.schemas';

const STATUS: Record<EndpointWorkerStateDto['state'], WorkerStatus> = {
  initializing: 'INITIALIZING',
  idle: 'IDLE',
  running: 'RUNNING',
  unhealthy: 'UNHEALTHY',
  throttled: 'THROTTLED',
};

/** Worker Pods that hold or seek capacity: scaled-down (exited, terminated) ones are not listed. */
export const activeWorkers = (dto: EndpointDto): PodDto[] =>
  (dto.workers ?? []).filter((pod) => pod.desiredStatus === 'RUNNING');

function podWorker(pod: PodDto, state: EndpointWorkerStateDto | undefined, dto: EndpointDto, now: number): WorkerView {
  // Without a state from the scheduler (none published yet), a worker is starting.
  const status = state === undefined ? 'INITIALIZING' : STATUS[state.state];
  const started = pod.lastStartedAt === null ? null : Date.parse(pod.lastStartedAt);
  return {
    id: pod.id,
    status,
    ...(state?.reason ? { reason: state.reason } : {}),
    isStale: pod.slsVersion !== dto.version,
    version: pod.slsVersion,
    gpuCount: pod.gpuCount,
    image: pod.imageName,
    uptimeSeconds: started === null ? null : Math.max(0, Math.floor((now - started) / 1000)),
    gpuTypeId: pod.gpuTypeId,
    dataCenterId: pod.dataCenterId,
    startedAt: pod.lastStartedAt,
    ...(pod.coldStart ? { coldStart: pod.coldStart } : {}),
  };
}

/** A throttled worker the cluster had no room for has no Pod yet: only its reason is known. */
const podlessWorker = (state: EndpointWorkerStateDto, dto: EndpointDto): WorkerView => ({
  id: state.workerId,
  status: STATUS[state.state],
  ...(state.reason ? { reason: state.reason } : {}),
  isStale: false,
  version: dto.version,
  gpuCount: dto.computeType === 'GPU' ? dto.gpuCount : 0,
  image: null,
  uptimeSeconds: null,
  gpuTypeId: null,
  dataCenterId: null,
  startedAt: null,
});

/**
 * RunPod's ListEndpointWorkersResponse: each active worker Pod with its status from the scheduler's worker states
 * (the queue's view) and, Runplane's addition, `reason` for an unhealthy or throttled one.
 */
export function workersView(dto: EndpointDto, now = Date.now()): ListWorkersResponse {
  const states = new Map((dto.workerStates ?? []).map((state) => [state.workerId, state]));
  const pods = activeWorkers(dto);
  const podIds = new Set(pods.map((pod) => pod.id));
  const workers = [
    ...pods.map((pod) => podWorker(pod, states.get(pod.id), dto, now)),
    ...[...states.values()].filter((state) => !podIds.has(state.workerId)).map((state) => podlessWorker(state, dto)),
  ];
  const count = (status: WorkerStatus) => workers.filter((worker) => worker.status === status).length;
  return {
    workers,
    summary: {
      running: count('RUNNING'),
      idle: count('IDLE'),
      initializing: count('INITIALIZING'),
      throttled: count('THROTTLED'),
      unhealthy: count('UNHEALTHY'),
      total: workers.length,
    },
    endpointVersion: dto.version,
    ...(dto.waitingReason ? { waitingReason: dto.waitingReason } : {}),
  };
}
