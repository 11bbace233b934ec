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
import type { FastifyRequest } from 'fastify';
import { defer, finalize, from, mergeMap, type Observable } from 'rxjs';
import { JobRateLimiter } from './job-rate-limiter';
import type { LimitedOperation } from './limit-table';

const OPERATION = 'runplane:limited-operation';

/** Applies the endpoint's limits of one operation to a route (after authentication). */
@Injectable()
export class RateLimitInterceptor implements NestInterceptor {
  constructor(
    @Inject(JobRateLimiter) private readonly limiter: JobRateLimiter,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const operation = this.reflector.get<LimitedOperation | undefined>(OPERATION, context.getHandler());
    if (!operation) return next.handle();
    const endpointId = (context.switchToHttp().getRequest<FastifyRequest>().params as Record<string, string | undefined>).endpointId ?? '';
    // A refusal is a RateLimitedError: the error filter answers 429 with its Retry-After.
    return defer(() => from(this.limiter.acquire(endpointId, operation))).pipe(
      mergeMap((release) => next.handle().pipe(finalize(() => void release().catch(() => undefined)))),
    );
  }
}

/** Marks a route as one limited operation of the job API. */
export const RateLimited = (operation: LimitedOperation): MethodDecorator =>
  applyDecorators(SetMetadata(OPERATION, operation), UseInterceptors(RateLimitInterceptor));
