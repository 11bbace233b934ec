import { type DynamicModule, Module } from '@nestjs/common';
import { HealthController } from '@runplane/http';

/** Root module of the scheduler (placement, pod lifecycle and autoscaling). */
@Module({})
export class SchedulerModule {
  static forRoot(infrastructure: DynamicModule): DynamicModule {
    return { module: SchedulerModule, imports: [infrastructure], controllers: [HealthController] };
  }
}
