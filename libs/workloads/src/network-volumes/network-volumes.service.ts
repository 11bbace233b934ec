import {
  type NetworkVolumeCreateInput,
  type NetworkVolumeDto,
  type NetworkVolumeUpdateInput,
  NotFoundError,
  ValidationError,
} from '@runplane/contracts';
import { type NetworkVolume, newId } from '@runplane/db';
import { inUseMessage } from '../registry-auth/in-use';
import type { NetworkVolumesRepository } from './network-volumes.repository';

/** What the network volumes service needs from the catalog (wired by the gateway). */
export interface DataCenterCatalog {
  /** True when the id names a data center of the catalog. */
  hasDataCenter(id: string): Promise<boolean>;
}

function toDto(row: NetworkVolume): NetworkVolumeDto {
  return { id: row.id, name: row.name, size: row.size, dataCenterId: row.dataCenterId };
}

/** Network volumes: created in a catalog data center, renamed, grown (never shrunk), deleted when detached. */
export class NetworkVolumesService {
  constructor(
    private readonly volumes: NetworkVolumesRepository,
    private readonly catalog: DataCenterCatalog,
  ) {}

  async create(accountId: string, input: NetworkVolumeCreateInput): Promise<NetworkVolumeDto> {
    if (!(await this.catalog.hasDataCenter(input.dataCenterId))) {
      throw new ValidationError(`dataCenterId: unknown data center "${input.dataCenterId}"`);
    }
    const row = await this.volumes.create({ id: newId(), accountId, ...input });
    return toDto(row);
  }

  async list(accountId: string): Promise<NetworkVolumeDto[]> {
    return (await this.volumes.listByAccount(accountId)).map(toDto);
  }

  async get(accountId: string, id: string): Promise<NetworkVolumeDto> {
    return this.findOwned(accountId, id);
  }

  /** The caller's network volume; NotFoundError for a missing one or another account's. */
  async findOwned(accountId: string, id: string): Promise<NetworkVolumeDto> {
    const row = await this.volumes.findOwned(accountId, id);
    if (!row) throw new NotFoundError('Network volume');
    return toDto(row);
  }

  /** Renames and/or grows the volume; a size not above the current one is refused. */
  async update(accountId: string, id: string, input: NetworkVolumeUpdateInput): Promise<NetworkVolumeDto> {
    const current = await this.findOwned(accountId, id);
    if (input.size !== undefined) {
      if (input.size <= current.size) {
        throw new ValidationError(`size: must be greater than the current size (${current.size})`);
      }
      if (!(await this.volumes.grow(accountId, id, input.size))) {
        // Gone meanwhile, or a concurrent grow reached this size first.
        const now = await this.findOwned(accountId, id);
        throw new ValidationError(`size: must be greater than the current size (${now.size})`);
      }
    }
    if (input.name !== undefined && !(await this.volumes.rename(accountId, id, input.name))) {
      throw new NotFoundError('Network volume');
    }
    return this.findOwned(accountId, id);
  }

  /** Deletes the volume; refused (400, naming them) while a live Pod or an endpoint has it attached. */
  async delete(accountId: string, id: string): Promise<void> {
    const outcome = await this.volumes.deleteUnattached(accountId, id);
    if (outcome.status === 'missing') throw new NotFoundError('Network volume');
    if (outcome.status === 'in-use') {
      throw new ValidationError(
        inUseMessage('Network volume', outcome.usage) ?? 'Network volume is attached; detach it first',
      );
    }
  }
}
