import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post } from '@nestjs/common';
import {
  networkVolumeCreateInput,
  type NetworkVolumeCreateInput,
  type NetworkVolumeDto,
  networkVolumeUpdateInput,
  type NetworkVolumeUpdateInput,
  type Principal,
} from '@runplane/contracts';
import { Authenticated, CurrentPrincipal, Reads, Writes, ZodPipe } from '@runplane/http';
import type { NetworkVolumesService } from '@runplane/workloads';
import { NETWORK_VOLUMES_SERVICE } from './network-volumes.tokens';

/** RunPod v1 `/networkvolumes`: create in a catalog data center, rename or grow, delete when detached. */
@Controller('v1/networkvolumes')
@Authenticated()
export class NetworkVolumesController {
  constructor(@Inject(NETWORK_VOLUMES_SERVICE) private readonly volumes: NetworkVolumesService) {}

  @Post()
  @Writes()
  @HttpCode(200)
  create(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodPipe(networkVolumeCreateInput)) input: NetworkVolumeCreateInput,
  ): Promise<NetworkVolumeDto> {
    return this.volumes.create(principal.accountId, input);
  }

  @Get()
  @Reads()
  list(@CurrentPrincipal() principal: Principal): Promise<NetworkVolumeDto[]> {
    return this.volumes.list(principal.accountId);
  }

  @Get(':networkVolumeId')
  @Reads()
  get(@CurrentPrincipal() principal: Principal, @Param('networkVolumeId') id: string): Promise<NetworkVolumeDto> {
    return this.volumes.get(principal.accountId, id);
  }

  @Patch(':networkVolumeId')
  @Writes()
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('networkVolumeId') id: string,
    @Body(new ZodPipe(networkVolumeUpdateInput)) input: NetworkVolumeUpdateInput,
  ): Promise<NetworkVolumeDto> {
    return this.volumes.update(principal.accountId, id, input);
  }

  /** `POST /networkvolumes/{id}/update` is v1's synonym for PATCH. */
  @Post(':networkVolumeId/update')
  @Writes()
  @HttpCode(200)
  updateSynonym(
    @CurrentPrincipal() principal: Principal,
    @Param('networkVolumeId') id: string,
    @Body(new ZodPipe(networkVolumeUpdateInput)) input: NetworkVolumeUpdateInput,
  ): Promise<NetworkVolumeDto> {
    return this.volumes.update(principal.accountId, id, input);
  }

  @Delete(':networkVolumeId')
  @Writes()
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal, @Param('networkVolumeId') id: string): Promise<void> {
    await this.volumes.delete(principal.accountId, id);
  }
}
