import { type DynamicModule, Module } from '@nestjs/common';
import { HealthController } from '@runplane/http';

/** Root module of the webhook-dispatcher (outbound webhook delivery). */
@Module({})
export class WebhookDispatcherModule {
  static forRoot(infrastructure: DynamicModule): DynamicModule {
    return { module: WebhookDispatcherModule, imports: [infrastructure], controllers: [HealthController] };
  }
}
