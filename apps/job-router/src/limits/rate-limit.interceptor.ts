import {
  type CallHandler,
  type ExecutionContext,
  Inject,
  Injectable,
  type NestInterceptor,
  SetMetadata,
  UseInterceptors,
  applyDecorators,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { requestPrincipal } from '@runplane/http';
import type { FastifyRequest } from 'fastify';
import { defer, finalize, from, mergeMap, type Observable } from 'rxjs';
import { EndpointLimits } from './endpoint-limits';
import type { LimitedOperation } from './limit-table';

const OPERATION = 'runplane:limited-operation';

/** Applies the endpoint's limits of one operation to a route (after authentication, for the key's own endpoint). */
@Injectable()
export class RateLimitInterceptor implements NestInterceptor {
  constructor(
    @Inject(EndpointLimits) private readonly limits: EndpointLimits,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const operation = this.reflector.get<LimitedOperation | undefined>(OPERATION, context.getHandler());
    if (!operation) return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const endpointId = (request.params as Record<string, string | undefined>).endpointId ?? '';
    // A refusal is a RateLimitedError (429 with its Retry-After), or the 404 of an endpoint the key's account lacks.
    return defer(() => from(this.limits.acquire(requestPrincipal(request), endpointId, operation))).pipe(
      mergeMap((release) => next.handle().pipe(finalize(() => void release().catch(() => undefined)))),
    );
  }
}

/** Marks a route as one limited operation of the job API. */
export const RateLimited = (operation: LimitedOperation): MethodDecorator =>
  applyDecorators(SetMetadata(OPERATION, operation), UseInterceptors(RateLimitInterceptor));
