import { ConflictError, NotFoundError } from '@runplane/contracts';
import type { Pod } from '@runplane/db';
import type { PodRepository, PodsService, PodTemplateSource } from '@runplane/workloads';
import { pageByCreation } from '../http/pagination';
import { ProblemError } from '../http/problem';
import { withV2FieldNames } from '../shared/field-names';
import { podActionsV2, podStatusV2, toPodV2 } from './pod-v2.mapper';
import { POD_V2_NAMES, toV1Create, toV1Update } from './pod-v2-input';
import type {
  CreatePodRequest,
  ListPodsQuery,
  ListPodsResponse,
  PodActionV2,
  PodV2,
  UpdatePodRequest,
} from './pods.schemas';

/**
 * `/v2/pods` over the same rows and rules as v1's PodsService (placement, pricing, templates, the lifecycle state
 * machine); v2 adds its shapes, the observed status with the actions valid in it, and 409 for any other action.
 */
export class PodsV2Service {
  constructor(
    private readonly pods: PodsService,
    private readonly rows: PodRepository,
    private readonly templates: PodTemplateSource,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** One page of the caller's Pods, oldest first, read from the database a page at a time. */
  async list(accountId: string, query: ListPodsQuery): Promise<ListPodsResponse> {
    const { items, pagination } = await pageByCreation(query, 'pods', (after, take) =>
      this.rows.page(accountId, after, take),
    );
    const now = this.clock();
    return { pods: items.map((row) => toPodV2(row, now)), pagination };
  }

  async create(accountId: string, input: CreatePodRequest): Promise<PodV2> {
    const sshKeys = input.startSsh ?? input.templateId !== undefined;
    const created = await withV2FieldNames(POD_V2_NAMES, () =>
      this.pods.create(accountId, toV1Create(input), { sshKeys }),
    );
    return this.get(accountId, created.id);
  }

  /** The Pod as v2 shows it, read with only the columns its answer has. */
  async get(accountId: string, id: string): Promise<PodV2> {
    const row = await this.rows.findPaged(accountId, id);
    if (!row || row.endpointId !== null) throw new NotFoundError('Pod');
    return toPodV2(row, this.clock());
  }

  /** Only the fields sent change; a new `templateId` applies that template's container settings first. */
  async update(accountId: string, id: string, input: UpdatePodRequest): Promise<PodV2> {
    const row = await this.own(accountId, id);
    const changes = input.templateId !== undefined && input.templateId !== row.templateId;
    const template = changes ? await this.templates.findUsable(accountId, input.templateId as string) : null;
    await withV2FieldNames(POD_V2_NAMES, () => this.pods.update(accountId, id, toV1Update(row, input, template)));
    if (template) {
      const updated = await this.own(accountId, id);
      if (!(await this.rows.updateIfUnchanged(accountId, id, updated.updatedAt, { templateId: template.id })))
        throw new ConflictError('The Pod changed while this request was handled; retry it');
    }
    return this.get(accountId, id);
  }

  /** start, stop or restart answer the Pod; terminate deletes it (null: 204). Invalid in the Pod's status: 409. */
  async act(accountId: string, id: string, action: PodActionV2): Promise<PodV2 | null> {
    const row = await this.own(accountId, id);
    const status = podStatusV2(row);
    const allowed = podActionsV2(status);
    if (!allowed.includes(action)) {
      const now = allowed.length > 0 ? `; valid now: ${allowed.join(', ')}` : '';
      throw new ProblemError(409, `Cannot ${action} a Pod that is ${status}${now}`);
    }
    if (action === 'terminate') {
      await this.pods.delete(accountId, id);
      return null;
    }
    await withV2FieldNames(POD_V2_NAMES, () => this.pods.act(accountId, id, action));
    return this.get(accountId, id);
  }

  async delete(accountId: string, id: string): Promise<void> {
    await this.own(accountId, id);
    await this.pods.delete(accountId, id);
  }

  /** The caller's Pod row (v2 shows none of its relations); serverless workers are not Pods here (their endpoint manages them). */
  private async own(accountId: string, id: string): Promise<Pod> {
    const row = await this.rows.findPod(accountId, id);
    if (!row || row.endpointId !== null) throw new NotFoundError('Pod');
    return row;
  }
}
