import { Controller, Get, Header, HttpCode, Inject, Res } from '@nestjs/common';
import type { MetricsRegistry } from '@runplane/observability';
import type { FastifyReply } from 'fastify';

/** A dependency /readyz must reach (Postgres, Redis, ...); `check` rejects when it can't. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

/** Injection token for the app's readiness checks. */
export const READINESS_CHECKS = Symbol('READINESS_CHECKS');
/** Injection token for the app's Prometheus registry. */
export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');

type CheckResult = { status: 'ok' } | { status: 'error'; error: string };

/** Liveness, readiness and Prometheus metrics, the same on every Runplane service. */
@Controller()
export class HealthController {
  constructor(
    @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
    @Inject(METRICS_REGISTRY) private readonly metrics: MetricsRegistry,
  ) {}

  @Get('healthz')
  @HttpCode(200)
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  async readyz(@Res() reply: FastifyReply): Promise<void> {
    const results = await Promise.all(
      this.checks.map(async ({ name, check }): Promise<[string, CheckResult]> => {
        try {
          await check();
          return [name, { status: 'ok' }];
        } catch (error) {
          return [name, { status: 'error', error: error instanceof Error ? error.message : String(error) }];
        }
      }),
    );
    const ready = results.every(([, result]) => result.status === 'ok');
    await reply
      .status(ready ? 200 : 503)
      .send({ status: ready ? 'ok' : 'unavailable', checks: Object.fromEntries(results) });
  }

  @Get('metrics')
  @Header('Cache-Control', 'no-store')
  async metricsText(@Res() reply: FastifyReply): Promise<void> {
    await reply.header('Content-Type', this.metrics.contentType).send(await this.metrics.metrics());
  }
}
