import { Module } from '@nestjs/common';
import { CatalogRepository } from '@runplane/catalog';
import type { DbClient } from '@runplane/db';
import { DB_CLIENT } from '@runplane/http';
import { CapacityRepository } from '@runplane/placement';
import { CatalogController } from './catalog.controller';
import { CpuCatalog } from './cpu-catalog';
import { DataCenterCatalog } from './data-center-catalog';
import { GpuCatalog } from './gpu-catalog';
import type { InventorySource } from './inventory';
import { TemplateCatalog } from './template-catalog';

const INVENTORY = Symbol('CATALOG_INVENTORY');

/** `/v2/catalog/*`: the catalog rows, with availability from the machines' free capacity the scheduler keeps. */
@Module({
  controllers: [CatalogController],
  providers: [
    { provide: CatalogRepository, inject: [DB_CLIENT], useFactory: (db: DbClient) => new CatalogRepository(db) },
    {
      provide: INVENTORY,
      inject: [DB_CLIENT],
      useFactory: (db: DbClient): InventorySource => new CapacityRepository(db),
    },
    {
      provide: GpuCatalog,
      inject: [CatalogRepository, INVENTORY],
      useFactory: (catalog: CatalogRepository, inventory: InventorySource) => new GpuCatalog(catalog, inventory),
    },
    {
      provide: CpuCatalog,
      inject: [CatalogRepository, INVENTORY],
      useFactory: (catalog: CatalogRepository, inventory: InventorySource) => new CpuCatalog(catalog, inventory),
    },
    {
      provide: DataCenterCatalog,
      inject: [CatalogRepository, INVENTORY],
      useFactory: (catalog: CatalogRepository, inventory: InventorySource) => new DataCenterCatalog(catalog, inventory),
    },
    { provide: TemplateCatalog, inject: [DB_CLIENT], useFactory: (db: DbClient) => new TemplateCatalog(db) },
  ],
})
export class CatalogModule {}
