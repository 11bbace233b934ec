import { type DynamicModule, Global, Module } from '@nestjs/common';
import { V2FallbackController } from './fallback.controller';
import { type RateLimitWindow, V2_RATE_LIMIT_WINDOWS, V2RateLimiter, V2RateLimitInterceptor } from './http/rate-limit';
import { V2EdgeProblems } from './http/edge-problems';
import { V2OpenApiController } from './openapi/openapi.controller';
import { BillingV2Module } from './billing/billing.module';
import { CatalogModule } from './catalog/catalog.module';
import { ServerlessV2Module } from './serverless/serverless.module';
import { V2LogsModule } from './logs/logs.module';
import { PodsV2Module } from './pods/pods.module';
import { AccountModule } from './account/account.module';
import { TemplatesV2Module } from './templates/templates.module';
import { NetworkVolumesV2Module } from './network-volumes/network-volumes.module';
import { RegistriesV2Module } from './registries/registries.module';
import { S3KeysV2Module } from './s3-keys/s3-keys.module';
import type { RequestUrlBases } from './serverless/endpoint-view';

/** Settings of the v2 API beyond the shared infrastructure. */
export interface V2Options {
  /** Public URLs of the job API and of load-balancing endpoints, for serverless endpoints' requestUrls. */
  urls: RequestUrlBases;
  /** Per-account quotas (see rateLimitWindows); empty: no limits and no RateLimit headers. */
  rateLimits: RateLimitWindow[];
  /** Seals registry passwords at rest (the key v1 uses). */
  encryptionKey: Buffer;
}

/** What every v2 resource family's controllers need: the quota counters their V2Controller decorator applies. */
@Global()
@Module({})
class V2HttpModule {
  static forRoot(options: V2Options): DynamicModule {
    return {
      module: V2HttpModule,
      providers: [
        { provide: V2_RATE_LIMIT_WINDOWS, useValue: options.rateLimits },
        V2RateLimiter,
        V2RateLimitInterceptor,
        V2EdgeProblems,
      ],
      exports: [V2RateLimiter, V2RateLimitInterceptor],
    };
  }
}

/**
 * The management REST API v2 (RunPod-compatible), beside v1 over the same rows. Each resource family is one module
 * in `imports`; the fallback (404, 405, 501 for what Runplane does not offer) answers every other `/v2/...` path.
 */
@Module({})
export class V2Module {
  static forRoot(options: V2Options): DynamicModule {
    return {
      module: V2Module,
      imports: [
        V2HttpModule.forRoot(options),
        CatalogModule,
        BillingV2Module,
        ServerlessV2Module.forRoot(options),
        V2LogsModule,
        PodsV2Module,
        AccountModule,
        TemplatesV2Module,
        NetworkVolumesV2Module,
        RegistriesV2Module.forRoot(options),
        S3KeysV2Module,
      ],
      controllers: [V2OpenApiController, V2FallbackController],
    };
  }
}
