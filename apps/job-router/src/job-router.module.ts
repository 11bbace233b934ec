import { type DynamicModule, Module } from '@nestjs/common';
import { HealthController } from '@runplane/http';

/** Root module of the job-router (the serverless job API v2 and the worker protocol). */
@Module({})
export class JobRouterModule {
  static forRoot(infrastructure: DynamicModule): DynamicModule {
    return { module: JobRouterModule, imports: [infrastructure], controllers: [HealthController] };
  }
}
