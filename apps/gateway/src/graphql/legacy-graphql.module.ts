import { type DynamicModule, Module } from '@nestjs/common';
import { SshKeysRepository } from '@runplane/accounts';
import { CurrentSpendRepository } from '@runplane/billing';
import { CatalogRepository } from '@runplane/catalog';
import { type DbClient, SecretBox } from '@runplane/db';
import { DB_CLIENT } from '@runplane/http';
import { CapacityRepository } from '@runplane/placement';
import type { EndpointsService } from '@runplane/endpoints';
import {
  type NetworkVolumesService,
  type PodsService,
  RegistryAuthRepository,
  RegistryAuthService,
  type TemplatesService,
} from '@runplane/workloads';
import { EndpointsModule } from '../v1/endpoints/endpoints.module';
import { ENDPOINTS_SERVICE } from '../v1/endpoints/endpoints.tokens';
import { NetworkVolumesModule } from '../v1/network-volumes/network-volumes.module';
import { NETWORK_VOLUMES_SERVICE } from '../v1/network-volumes/network-volumes.tokens';
import { PodsModule } from '../v1/pods/pods.module';
import { PODS_SERVICE } from '../v1/pods/pods.tokens';
import { TemplatesModule } from '../v1/templates/templates.module';
import { TEMPLATES_SERVICE } from '../v1/templates/templates.tokens';
import { CatalogResolvers } from './catalog.resolvers';
import { LegacyGraphql } from './legacy-graphql';
import { LegacyGraphqlController } from './legacy-graphql.controller';
import { type LegacyServices, legacyRoot } from './legacy-resolvers';
import { LEGACY_GRAPHQL } from './tokens';

/** The v1 workload services the legacy operations share with v1 and v2. */
type Workloads = Pick<LegacyServices, 'pods' | 'volumes' | 'templates'>;
const WORKLOADS = Symbol('LEGACY_GRAPHQL_WORKLOADS');

/**
 * RunPod's GraphQL API (`POST /graphql`) over the services v1 and v2 use, so a Pod or volume is the same row on
 * every surface. graphql-js runs it inside a plain Nest controller rather than through mercurius or Nest's GraphQL
 * module: the surface is one route with a fixed, client-derived schema, and a controller keeps it in the gateway's
 * own pipeline (the API key authenticator, the error filter, request ids, body limits) without a second Fastify
 * plugin to wire and without code-first decorators for a schema that must match RunPod's text exactly.
 */
@Module({})
export class LegacyGraphqlModule {
  /** `encryptionKey` seals registry passwords at rest (the key v1 and v2 use). */
  static forRoot(options: { encryptionKey: Buffer }): DynamicModule {
    return {
      module: LegacyGraphqlModule,
      imports: [PodsModule, NetworkVolumesModule, EndpointsModule, TemplatesModule],
      controllers: [LegacyGraphqlController],
      providers: [
        {
          provide: WORKLOADS,
          inject: [PODS_SERVICE, NETWORK_VOLUMES_SERVICE, TEMPLATES_SERVICE],
          useFactory: (pods: PodsService, volumes: NetworkVolumesService, templates: TemplatesService): Workloads => ({
            pods,
            volumes,
            templates,
          }),
        },
        {
          provide: LEGACY_GRAPHQL,
          inject: [DB_CLIENT, WORKLOADS, ENDPOINTS_SERVICE],
          useFactory: (db: DbClient, workloads: Workloads, endpoints: EndpointsService) =>
            new LegacyGraphql(
              legacyRoot({
                ...workloads,
                endpoints,
                sshKeys: new SshKeysRepository(db),
                spend: new CurrentSpendRepository(db),
                registryAuths: new RegistryAuthService(
                  new RegistryAuthRepository(db),
                  new SecretBox(options.encryptionKey),
                ),
                catalog: new CatalogResolvers(new CatalogRepository(db), new CapacityRepository(db)),
              }),
            ),
        },
      ],
    };
  }
}
