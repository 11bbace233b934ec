import { NotFoundError } from '@runplane/contracts';
import type { NetworkVolume } from '@runplane/db';
import type { NetworkVolumesRepository, NetworkVolumesService } from '@runplane/workloads';
import { type PageQuery, paginate } from '../http/pagination';
import { withV2FieldNames } from '../shared/field-names';
import type {
  CreateNetworkVolumeRequest,
  ListNetworkVolumesResponse,
  NetworkVolumeV2,
  UpdateNetworkVolumeRequest,
} from './network-volumes.schemas';

function toV2(row: NetworkVolume): NetworkVolumeV2 {
  return {
    id: row.id,
    name: row.name,
    size: row.size,
    dataCenter: row.dataCenterId,
    type: row.highPerformance ? 'HIGH_PERFORMANCE' : 'STANDARD',
  };
}

/** What the v2 volumes read and write: v1's service for its rules, the repository for the tier column. */
export interface NetworkVolumesV2Dependencies {
  volumes: NetworkVolumesService;
  rows: NetworkVolumesRepository;
  /** Sets the tier of the caller's new volume. */
  setHighPerformance(accountId: string, id: string): Promise<void>;
}

/** `/v2/network-volumes` over the same rows and rules as v1 (catalog data centers, grow only, delete when detached). */
export class NetworkVolumesV2Service {
  constructor(private readonly deps: NetworkVolumesV2Dependencies) {}

  async create(accountId: string, input: CreateNetworkVolumeRequest): Promise<NetworkVolumeV2> {
    const created = await withV2FieldNames({ dataCenterId: 'dataCenter' }, () =>
      this.deps.volumes.create(accountId, { name: input.name, size: input.size, dataCenterId: input.dataCenter }),
    );
    if (input.type === 'HIGH_PERFORMANCE') await this.deps.setHighPerformance(accountId, created.id);
    return this.get(accountId, created.id);
  }

  async list(accountId: string, page: PageQuery): Promise<ListNetworkVolumesResponse> {
    const rows = await this.deps.rows.listByAccount(accountId);
    const { items, pagination } = paginate(rows, page, { list: 'networkVolumes', key: (row) => row.id });
    return { networkVolumes: items.map(toV2), pagination };
  }

  async get(accountId: string, id: string): Promise<NetworkVolumeV2> {
    const row = await this.deps.rows.findOwned(accountId, id);
    if (!row) throw new NotFoundError('Network volume');
    return toV2(row);
  }

  /** Renames and/or grows; the current size again changes nothing (v2 allows equal, v1 refuses it). */
  async update(accountId: string, id: string, input: UpdateNetworkVolumeRequest): Promise<NetworkVolumeV2> {
    const current = await this.get(accountId, id);
    const size = input.size === current.size ? undefined : input.size;
    if (size !== undefined || input.name !== undefined) {
      await this.deps.volumes.update(accountId, id, { name: input.name, size });
    }
    return this.get(accountId, id);
  }

  async delete(accountId: string, id: string): Promise<void> {
    await this.deps.volumes.delete(accountId, id);
  }
}
