import { Get, Inject, Query, Req, Res } from '@nestjs/common';
import type { Principal } from '@runplane/contracts';
import type { FastifyReply, FastifyRequest } from '@runplane/http';
import { CurrentPrincipal, Reads, V2Controller, V2Query } from '../http';
import type { LogStreamClient } from './log-stream.client';
import type { LogTargets } from './log-targets';
import { logStreamQuery, type LogStreamQuery } from './logs.routes';
import { respondWithLogStream } from './sse-log-response';

/** Injection token of the gateway's LogStreamClient. */
export const LOG_STREAM_CLIENT = Symbol('LOG_STREAM_CLIENT');
/** Injection token of LogTargets. */
export const LOG_TARGETS = Symbol('LOG_TARGETS');

/** `GET /v2/pods/{id}/logs` and `GET /v2/serverless/{id}/workers/{workerId}/logs`: Server-Sent Events. */
@V2Controller('')
export class LogsController {
  constructor(
    @Inject(LOG_TARGETS) private readonly targets: LogTargets,
    @Inject(LOG_STREAM_CLIENT) private readonly client: LogStreamClient,
  ) {}

  @Get('pods/:id/logs')
  @Reads()
  async pod(
    @CurrentPrincipal() principal: Principal,
    @Query(new V2Query(logStreamQuery)) query: LogStreamQuery,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const { id } = request.params as { id: string };
    const podId = await this.targets.pod(principal.accountId, id);
    await respondWithLogStream({ request, reply, client: this.client, podId, query });
  }

  @Get('serverless/:id/workers/:workerId/logs')
  @Reads()
  async worker(
    @CurrentPrincipal() principal: Principal,
    @Query(new V2Query(logStreamQuery)) query: LogStreamQuery,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const params = request.params as { id: string; workerId: string };
    const podId = await this.targets.worker(principal.accountId, params.id, params.workerId);
    await respondWithLogStream({ request, reply, client: this.client, podId, query });
  }
}
