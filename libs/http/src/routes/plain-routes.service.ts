import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { interceptRequests, type RequestInterceptor } from '../proxy/intercept';
import { acceptJsonBodies, type BodyLimitOf } from './json-bodies';
import { type RouteGroup, serveRoutes } from './plain-routes';

/**
 * A Nest app's door to its plain routes: serves them on the app's Fastify instance. Use it from a provider's
 * onModuleInit, which runs before Fastify is ready (routes and hooks cannot be added after).
 */
@Injectable()
export class PlainRoutes {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  /** Serves a group's routes through its guards (see {@link serveRoutes}). */
  serve<Policy, Caller>(group: RouteGroup<Policy, Caller>): void {
    serveRoutes(this.fastify(), group);
  }

  /** Takes every body as JSON, with a limit per route (see {@link acceptJsonBodies}). */
  acceptJsonBodies(limitOf: BodyLimitOf): void {
    acceptJsonBodies(this.fastify(), limitOf);
  }

  /** Hands the interceptor's requests and upgrades to it before routing (see {@link interceptRequests}). */
  intercept(interceptor: RequestInterceptor): void {
    interceptRequests(this.fastify(), interceptor);
  }

  private fastify(): FastifyInstance {
    return this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
  }
}
