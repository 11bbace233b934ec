import { Body, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query } from '@nestjs/common';
import type { Principal } from '@runplane/contracts';
import { CurrentPrincipal, Reads, V2Body, V2Controller, V2Query, Writes } from '../http';
import { type PageQuery, paginationQuery } from '../http/pagination';
import { NetworkVolumesV2Service } from './network-volumes-v2.service';
import {
  createNetworkVolumeRequest,
  type CreateNetworkVolumeRequest,
  type ListNetworkVolumesResponse,
  type NetworkVolumeV2,
  updateNetworkVolumeRequest,
  type UpdateNetworkVolumeRequest,
} from './network-volumes.schemas';

/** RunPod v2 `/network-volumes`: the caller's volumes; another account's are not found. */
@V2Controller('network-volumes')
export class NetworkVolumesV2Controller {
  constructor(@Inject(NetworkVolumesV2Service) private readonly volumes: NetworkVolumesV2Service) {}

  @Get()
  @Reads()
  list(
    @CurrentPrincipal() principal: Principal,
    @Query(new V2Query(paginationQuery)) page: PageQuery,
  ): Promise<ListNetworkVolumesResponse> {
    return this.volumes.list(principal.accountId, page);
  }

  @Post()
  @Writes()
  create(
    @CurrentPrincipal() principal: Principal,
    @Body(new V2Body(createNetworkVolumeRequest)) input: CreateNetworkVolumeRequest,
  ): Promise<NetworkVolumeV2> {
    return this.volumes.create(principal.accountId, input);
  }

  @Get(':id')
  @Reads()
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<NetworkVolumeV2> {
    return this.volumes.get(principal.accountId, id);
  }

  @Patch(':id')
  @Writes()
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body(new V2Body(updateNetworkVolumeRequest)) input: UpdateNetworkVolumeRequest,
  ): Promise<NetworkVolumeV2> {
    return this.volumes.update(principal.accountId, id, input);
  }

  @Delete(':id')
  @Writes()
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    await this.volumes.delete(principal.accountId, id);
  }
}
