import { type DynamicModule, Module } from '@nestjs/common';
import { CatalogRepository } from '@runplane/catalog';
import type { DbClient } from '@runplane/db';
import { EndpointReleasesRepository, type EndpointsService } from '@runplane/endpoints';
import { DB_CLIENT } from '@runplane/http';
import type { TemplatesService } from '@runplane/workloads';
import { EndpointsModule } from '../../v1/endpoints/endpoints.module';
import { TemplatesModule } from '../../v1/templates/templates.module';
import { TEMPLATES_SERVICE } from '../../v1/templates/templates.tokens';
import { BoundTemplates } from './bound-template';
import type { RequestUrlBases } from './endpoint-view';
import { ServerlessController } from './serverless.controller';
import { ServerlessV2Service } from './serverless.service';
import { ENDPOINT_RELEASES, REQUEST_URL_BASES, V1_ENDPOINTS } from './serverless.tokens';

/** Settings of the serverless routes. */
export interface ServerlessOptions {
  /** Public URLs of this installation's job API (the job-router) and of its load-balancing endpoints. */
  urls: RequestUrlBases;
}

/** `/v2/serverless/*` over v1's endpoints service and templates (bound templates hold the container settings). */
@Module({})
export class ServerlessV2Module {
  static forRoot(options: ServerlessOptions): DynamicModule {
    return {
      module: ServerlessV2Module,
      imports: [EndpointsModule, TemplatesModule],
      controllers: [ServerlessController],
      providers: [
        { provide: REQUEST_URL_BASES, useValue: options.urls },
        {
          provide: ENDPOINT_RELEASES,
          inject: [DB_CLIENT],
          useFactory: (db: DbClient) => new EndpointReleasesRepository(db),
        },
        {
          provide: ServerlessV2Service,
          inject: [DB_CLIENT, V1_ENDPOINTS, TEMPLATES_SERVICE, REQUEST_URL_BASES],
          useFactory: (db: DbClient, endpoints: EndpointsService, templates: TemplatesService, urls: RequestUrlBases) =>
            new ServerlessV2Service({
              endpoints,
              boundTemplates: new BoundTemplates(templates, db),
              catalog: new CatalogRepository(db),
              db,
              urls,
            }),
        },
      ],
    };
  }
}
