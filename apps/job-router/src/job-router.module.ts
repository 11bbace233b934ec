import { type DynamicModule, Module } from '@nestjs/common';
import { HealthController } from '@runplane/http';
import { JobsApiModule, type JobsApiOptions } from './jobs-api.module';
import { JobRouterMetricsModule } from './metrics/job-router-metrics.module';

/** Root module of the job-router (the serverless job API v2 and the worker protocol). */
@Module({})
export class JobRouterModule {
  /** Without `jobsApi` only the health routes are served. */
  static forRoot(infrastructure: DynamicModule, jobsApi?: JobsApiOptions): DynamicModule {
    const imports = jobsApi
      ? [infrastructure, JobsApiModule.forRoot(jobsApi), JobRouterMetricsModule.forRoot(jobsApi.config)]
      : [infrastructure];
    return { module: JobRouterModule, imports, controllers: [HealthController] };
  }
}
