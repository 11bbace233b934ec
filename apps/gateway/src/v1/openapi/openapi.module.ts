import { Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from '@runplane/http';
import { registerApiReference } from './docs';
import { OpenApiController } from './openapi.controller';
import { v1OpenApiDocument } from './routes';

/** The v1 OpenAPI document (`/v1/openapi.json`) and its interactive reference (`/v1/docs`), both public. */
@Module({ controllers: [OpenApiController] })
export class OpenApiModule implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    // Built now, so a wiring mistake in the route table (a name used twice, a route listed twice) stops startup.
    v1OpenApiDocument();
    // Routes are added before the Fastify instance is ready (Nest initialises modules first).
    registerApiReference(this.adapterHost.httpAdapter.getInstance<FastifyInstance>());
  }
}
