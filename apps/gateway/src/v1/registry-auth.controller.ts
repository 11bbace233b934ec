import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import {
  containerRegistryAuthCreateInput,
  type ContainerRegistryAuthCreateInput,
  type ContainerRegistryAuthDto,
  type Principal,
} from '@runplane/contracts';
import { Authenticated, CurrentPrincipal, Reads, Writes, ZodPipe } from '@runplane/http';
import type { RegistryAuthService } from '@runplane/workloads';
import { REGISTRY_AUTH_SERVICE } from './tokens';

/** RunPod v1 `/containerregistryauth`: create, list, get, delete; the password never comes back. */
@Controller('v1/containerregistryauth')
@Authenticated()
export class RegistryAuthController {
  constructor(@Inject(REGISTRY_AUTH_SERVICE) private readonly auths: RegistryAuthService) {}

  @Post()
  @Writes()
  @HttpCode(200)
  create(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodPipe(containerRegistryAuthCreateInput)) input: ContainerRegistryAuthCreateInput,
  ): Promise<ContainerRegistryAuthDto> {
    return this.auths.create(principal.accountId, input);
  }

  @Get()
  @Reads()
  list(@CurrentPrincipal() principal: Principal): Promise<ContainerRegistryAuthDto[]> {
    return this.auths.list(principal.accountId);
  }

  @Get(':containerRegistryAuthId')
  @Reads()
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('containerRegistryAuthId') id: string,
  ): Promise<ContainerRegistryAuthDto> {
    return this.auths.get(principal.accountId, id);
  }

  @Delete(':containerRegistryAuthId')
  @Writes()
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal, @Param('containerRegistryAuthId') id: string): Promise<void> {
    await this.auths.delete(principal.accountId, id);
  }
}
