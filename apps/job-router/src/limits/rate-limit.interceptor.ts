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
import type { FastifyReply, FastifyRequest } from 'fastify';
import { defer, finalize, from, mergeMap, type Observable } from 'rxjs';
import { JobRateLimiter, RateLimitedError } from './job-rate-limiter';
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
    const http = context.switchToHttp();
    const endpointId = (http.getRequest<FastifyRequest>().params as Record<string, string | undefined>).endpointId ?? '';
    const reply = http.getResponse<FastifyReply>();
    return defer(() => from(this.acquire(endpointId, operation, reply))).pipe(
      mergeMap((release) => next.handle().pipe(finalize(() => void release().catch(() => undefined)))),
    );
  }

  private async acquire(endpointId: string, operation: LimitedOperation, reply: FastifyReply): Promise<() => Promise<void>> {
    try {
      return await this.limiter.acquire(endpointId, operation);
    } catch (error) {
      if (error instanceof RateLimitedError) void reply.header('retry-after', String(error.retryAfterSeconds));
      throw error;
    }
  }
}

/** Marks a route as one limited operation of the job API. */
export const RateLimited = (operation: LimitedOperation): MethodDecorator =>
  applyDecorators(SetMetadata(OPERATION, operation), UseInterceptors(RateLimitInterceptor));
