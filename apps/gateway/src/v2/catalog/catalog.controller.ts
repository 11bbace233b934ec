import { Get, Inject, Param, Query } from '@nestjs/common';
import type { Principal } from '@runplane/contracts';
import { CurrentPrincipal, Reads, V2Controller, V2Query } from '../http';
import {
  type CpuQuery,
  cpuQuery,
  type CpuTypeView,
  type DataCenterListQuery,
  dataCenterListQuery,
  type DataCenterQuery,
  dataCenterQuery,
  type DataCenterView,
  type CatalogTemplateView,
  type GpuQuery,
  gpuQuery,
  type GpuTypeView,
  type TemplateCatalogQuery,
  templateCatalogQuery,
} from './catalog.schemas';
import { CpuCatalog } from './cpu-catalog';
import { DataCenterCatalog } from './data-center-catalog';
import { GpuCatalog } from './gpu-catalog';
import { TemplateCatalog } from './template-catalog';

/** `/v2/catalog/*`: GPU types (with their serverless pool), CPU flavors, data centers and public templates. */
@V2Controller('catalog')
export class CatalogController {
  constructor(
    @Inject(GpuCatalog) private readonly gpus: GpuCatalog,
    @Inject(CpuCatalog) private readonly cpus: CpuCatalog,
    @Inject(DataCenterCatalog) private readonly dataCenters: DataCenterCatalog,
    @Inject(TemplateCatalog) private readonly templates: TemplateCatalog,
  ) {}

  @Get('gpus')
  @Reads()
  async listGpus(@Query(new V2Query(gpuQuery)) query: GpuQuery): Promise<{ gpus: GpuTypeView[] }> {
    return { gpus: await this.gpus.list(query) };
  }

  @Get('gpus/:id')
  @Reads()
  getGpu(@Param('id') id: string, @Query(new V2Query(gpuQuery)) query: GpuQuery): Promise<GpuTypeView> {
    return this.gpus.get(id, query);
  }

  @Get('cpus')
  @Reads()
  async listCpus(@Query(new V2Query(cpuQuery)) query: CpuQuery): Promise<{ cpus: CpuTypeView[] }> {
    return { cpus: await this.cpus.list(query) };
  }

  @Get('cpus/:id')
  @Reads()
  getCpu(@Param('id') id: string, @Query(new V2Query(cpuQuery)) query: CpuQuery): Promise<CpuTypeView> {
    return this.cpus.get(id, query);
  }

  @Get('datacenters')
  @Reads()
  async listDataCenters(
    @Query(new V2Query(dataCenterListQuery)) query: DataCenterListQuery,
  ): Promise<{ dataCenters: DataCenterView[] }> {
    return { dataCenters: await this.dataCenters.list(query) };
  }

  @Get('datacenters/:id')
  @Reads()
  getDataCenter(
    @Param('id') id: string,
    @Query(new V2Query(dataCenterQuery)) query: DataCenterQuery,
  ): Promise<DataCenterView> {
    return this.dataCenters.get(id, query);
  }

  @Get('templates')
  @Reads()
  async listTemplates(
    @CurrentPrincipal() principal: Principal,
    @Query(new V2Query(templateCatalogQuery)) query: TemplateCatalogQuery,
  ): Promise<{ templates: CatalogTemplateView[] }> {
    return { templates: await this.templates.list(principal.accountId, query) };
  }
}
