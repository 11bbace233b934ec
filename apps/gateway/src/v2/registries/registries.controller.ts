import { Body, Delete, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import type { ContainerRegistryAuthDto, Principal } from '@runplane/contracts';
import type { RegistryAuthService } from '@runplane/workloads';
import { CurrentPrincipal, Reads, V2Body, V2Controller, V2Query, Writes } from '../http';
import { type PageQuery, paginate, paginationQuery } from '../http/pagination';
import {
  createRegistryRequest,
  type CreateRegistryRequest,
  type ListRegistriesResponse,
  type RegistryV2,
} from './registries.schemas';

/** Injection token of the RegistryAuthService the v2 registries use. */
export const REGISTRIES_SERVICE = Symbol('REGISTRIES_SERVICE');

const toV2 = (auth: ContainerRegistryAuthDto): RegistryV2 => ({ id: auth.id, name: auth.name });

/** RunPod v2 `/registries`: v1's container registry auths (same rows), answered without their username. */
@V2Controller('registries')
export class RegistriesV2Controller {
  constructor(@Inject(REGISTRIES_SERVICE) private readonly auths: RegistryAuthService) {}

  @Get()
  @Reads()
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query(new V2Query(paginationQuery)) page: PageQuery,
  ): Promise<ListRegistriesResponse> {
    const all = await this.auths.list(principal.accountId);
    const { items, pagination } = paginate(all, page, { list: 'registries', key: (auth) => auth.id });
    return { registries: items.map(toV2), pagination };
  }

  @Post()
  @Writes()
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body(new V2Body(createRegistryRequest)) input: CreateRegistryRequest,
  ): Promise<RegistryV2> {
    return toV2(await this.auths.create(principal.accountId, input));
  }

  @Get(':id')
  @Reads()
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<RegistryV2> {
    return toV2(await this.auths.get(principal.accountId, id));
  }

  @Delete(':id')
  @Writes()
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    await this.auths.delete(principal.accountId, id);
  }
}
