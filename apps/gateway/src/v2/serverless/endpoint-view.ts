import type { EndpointDto, TemplateDto } from '@runplane/contracts';
import { joinArgs } from '../shared/command-line';
import type { EndpointView } from './serverless.schemas';
import { type PoolTable, poolsOf } from './pools';

/** Where this installation is called: its job API's public URL and the origin of load-balancing endpoints' hosts. */
export interface RequestUrlBases {
  jobApiUrl: string;
  /** `<scheme>://<endpointId>.<domain>` is a load-balancing endpoint's base URL. */
  loadBalancer: { scheme: string; domain: string };
}

/** What an endpoint's v2 view is made of beyond its v1 row: its template, type and this installation's URLs. */
export interface EndpointParts {
  dto: EndpointDto;
  template: TemplateDto | null;
  type: 'QUEUE' | 'LOAD_BALANCER';
  pools: PoolTable;
  urls: RequestUrlBases;
}

/**
 * Where callers send an endpoint's requests. A QUEUE endpoint's jobs go to the job API of this installation
 * (job-router); a LOAD_BALANCER endpoint is its own host, `<scheme>://<id>.<domain>`, whose every path the job-router
 * proxies to a ready worker, and whose health URL is that base + `/ping` (RunPod's default HEALTH_CHECK_PATH).
 */
export function requestUrls(
  id: string,
  type: EndpointParts['type'],
  urls: RequestUrlBases,
): EndpointView['requestUrls'] {
  if (type === 'LOAD_BALANCER') {
    const lbBase = `${urls.loadBalancer.scheme}://${id}.${urls.loadBalancer.domain}`;
    return { base: lbBase, health: `${lbBase}/ping` };
  }
  const base = `${urls.jobApiUrl.replace(/\/+$/, '')}/v2/${id}`;
  return {
    run: `${base}/run`,
    runSync: `${base}/runsync`,
    status: `${base}/status/{job_id}`,
    stream: `${base}/stream/{job_id}`,
    cancel: `${base}/cancel/{job_id}`,
    retry: `${base}/retry/{job_id}`,
    purgeQueue: `${base}/purge-queue`,
    health: `${base}/health`,
  };
}

function compute(dto: EndpointDto, pools: PoolTable): Pick<EndpointView, 'gpu' | 'cpu'> {
  if (dto.computeType === 'CPU') {
    // Instance ids are "<flavor>-<vcpu>-<ramGb>": the RAM of each flavor at the endpoint's vCPU count.
    const memory = (id: string) => Number(dto.instanceIds.find((i) => i.startsWith(`${id}-`))?.split('-')[2] ?? 0);
    return { gpu: null, cpu: dto.cpuFlavorIds.map((id) => ({ id, vcpuCount: dto.vcpuCount, memory: memory(id) })) };
  }
  return {
    gpu: {
      ...poolsOf(dto.gpuTypeIds, pools),
      count: dto.gpuCount,
      allowedCudaVersions: dto.allowedCudaVersions,
      minCudaVersion: dto.minCudaVersion ?? null,
    },
  };
}

/** An endpoint as RunPod's v2 Endpoint: container settings from its template, scaling and workers from its row. */
export function endpointView({ dto, template, type, pools, urls }: EndpointParts): EndpointView {
  const requestCount = dto.scalerType === 'REQUEST_COUNT';
  return {
    id: dto.id,
    name: dto.name,
    type,
    requestUrls: requestUrls(dto.id, type, urls),
    image: template?.imageName ?? '',
    args: joinArgs(template?.dockerStartCmd ?? []),
    disk: template?.containerDiskInGb ?? 0,
    ports: template?.ports ?? [],
    env: dto.env,
    registry: template?.containerRegistryAuthId ?? null,
    ...compute(dto, pools),
    // idleTimeout means nothing to a queue endpoint scaling on request count: RunPod leaves it out.
    workers: {
      min: dto.workersMin,
      max: dto.workersMax,
      ...(requestCount && type === 'QUEUE' ? {} : { idleTimeout: dto.idleTimeout }),
    },
    scaling: requestCount
      ? { type: 'REQUEST_COUNT', requestCount: dto.scalerValue }
      : { type: 'QUEUE_DELAY', queueDelay: dto.scalerValue },
    dataCenterIds: dto.dataCenterIds,
    networkVolumes: dto.networkVolumeIds,
    timeout: dto.executionTimeoutMs,
    flashboot: dto.flashboot ? 'FLASHBOOT' : 'OFF',
    createdAt: dto.createdAt,
  };
}
