import { type DynamicModule, Module } from '@nestjs/common';
import { JobRouterMetrics, type JobRouterMetricsSettings, METRICS_SETTINGS } from './job-router-metrics';

/** The job-router's domain metrics (see JobRouterMetrics), beside the job API. */
@Module({})
export class JobRouterMetricsModule {
  static forRoot(settings: JobRouterMetricsSettings): DynamicModule {
    return {
      module: JobRouterMetricsModule,
      providers: [{ provide: METRICS_SETTINGS, useValue: settings }, JobRouterMetrics],
    };
  }
}
