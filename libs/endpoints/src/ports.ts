import type { EndpointWorkerStateDto, PodDto, TemplateDto, WaitingReasonDto } from '@runplane/contracts';
import type { EndpointTemplateRow } from './endpoints.repository';

/**
 * What endpoints need from other domains. Domain libs don't import each other, so the app wires these to
 * the workloads and catalog libs.
 */

/** Templates an account may build endpoints from. */
export interface EndpointTemplateSource {
  /** The template when the account may use it (its own or a public one), else null. */
  findUsable(accountId: string, templateId: string): Promise<TemplateDto | null>;
  /** {@link findUsable} for many templates in one read: the usable ones by id. */
  findUsableMany(accountId: string, templateIds: readonly string[]): Promise<Map<string, TemplateDto>>;
  /**
   * The env a template brings to its endpoints, from the columns read with them (one query for both); null when the
   * account may not use the template.
   */
  usableEnv(accountId: string, template: EndpointTemplateRow): Record<string, string> | null;
}

/** The account's network volumes. */
export interface EndpointVolumeSource {
  /** The volume's data center when the account owns it, else null. */
  findOwned(accountId: string, volumeId: string): Promise<{ id: string; dataCenterId: string } | null>;
}

/** Worker Pods (pods rows carrying an endpointId). */
export interface EndpointWorkerSource {
  /** The workers of these endpoints of the account, as Pods. */
  listWorkers(accountId: string, endpointIds: string[]): Promise<PodDto[]>;
}

/** The catalog entries an endpoint's shape is checked against. */
export interface EndpointCatalog {
  findGpuType(id: string): Promise<{ id: string; maxGpuCount: number } | null>;
  findCpuFlavor(id: string): Promise<{ id: string; minVcpu: number; maxVcpu: number; ramPerVcpuGb: number } | null>;
  findDataCenter(id: string): Promise<{ id: string } | null>;
  listDataCenters(): Promise<Array<{ id: string }>>;
}

/**
 * What an endpoint keeps outside Postgres: its queue, jobs and results (the job engine's Redis data), and its workers'
 * states as the scheduler publishes them.
 */
export interface EndpointRuntimeData {
  /** Removes a deleted endpoint's queue, jobs, results and worker states; idempotent. */
  purge(endpointId: string): Promise<void>;
  /** The endpoint's workers as the scheduler last saw them, with the reason for each unhealthy or throttled one. */
  workerStates(endpointId: string): Promise<{ workers: EndpointWorkerStateDto[]; waiting: WaitingReasonDto | null }>;
}
