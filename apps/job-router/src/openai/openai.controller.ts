import { Body, Controller, Get, Inject, Param, Post, Res } from '@nestjs/common';
import type { Principal } from '@runplane/contracts';
import { Authenticated, CurrentPrincipal, EndpointScoped, Writes } from '@runplane/http';
import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { JobApiService } from '../client/job-api.service';
import { RateLimited } from '../limits/rate-limit.interceptor';
import { type OpenAiCall, openAiGetCall, openAiPostCall } from './openai-request';
import { type OpenAiAnswer, OpenAiRelay } from './openai-relay';

/** nginx's "client closed request": logged for a request whose client left before its answer. */
const CLIENT_GONE = 499;

const EVENT_STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // Proxies must pass each event on at once rather than buffer the answer.
  'x-accel-buffering': 'no',
};

/** The wildcard parameter as one path (the router may hand it over split into segments). */
function pathOf(param: string | string[] | undefined): string {
  return Array.isArray(param) ? param.join('/') : (param ?? '');
}

/** Aborts when the client closes the connection before its answer was written out. */
function disconnection(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

async function send(reply: FastifyReply, answer: OpenAiAnswer): Promise<void> {
  switch (answer.kind) {
    case 'json':
      // OpenAI's own clients (openai-node, openai-python) read this header before their status-based retry rule.
      if (answer.retry === false) void reply.header('x-should-retry', 'false');
      await reply
        .status(answer.status)
        .type('application/json; charset=utf-8')
        .send(JSON.stringify(answer.body ?? null));
      return;
    case 'events': {
      const body = Readable.from(answer.events, { objectMode: false });
      void reply.status(200).headers(EVENT_STREAM_HEADERS).send(body);
      // Resolving only when the last event is out keeps the request's concurrency slot for the whole stream.
      await finished(body).catch(() => undefined);
      return;
    }
    case 'gone':
      await reply.status(CLIENT_GONE).send();
      return;
  }
}

/**
 * RunPod's OpenAI-compatible route, `/v2/{endpointId}/openai/v1/<path>`: each request is a job of the endpoint
 * (`{openai_route, openai_input}`) whose output is the HTTP answer, or whose stream chunks are the SSE body. Errors
 * before a job exists (auth, unknown endpoint, bad JSON, limits) keep the job API's shape; a job that fails answers
 * OpenAI's `{"error": {message, type, code}}` with 500.
 */
@Controller('v2/:endpointId/openai/v1')
@Authenticated()
@EndpointScoped()
export class OpenAiController {
  private readonly relay: OpenAiRelay;

  constructor(@Inject(JobApiService) jobs: JobApiService) {
    this.relay = new OpenAiRelay(jobs);
  }

  // Every request is a job of the endpoint, even a GET of /v1/models: a write.
  @Get('*')
  @Writes()
  @RateLimited('openai')
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('endpointId') endpointId: string,
    @Param('*') path: string | string[] | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.relayTo(reply, principal, endpointId, openAiGetCall(pathOf(path)));
  }

  @Post('*')
  @Writes()
  @RateLimited('openai')
  async post(
    @CurrentPrincipal() principal: Principal,
    @Param('endpointId') endpointId: string,
    @Param('*') path: string | string[] | undefined,
    @Body() body: unknown,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.relayTo(reply, principal, endpointId, openAiPostCall(pathOf(path), body));
  }

  private async relayTo(
    reply: FastifyReply,
    principal: Principal,
    endpointId: string,
    call: OpenAiCall,
  ): Promise<void> {
    await send(reply, await this.relay.answer(principal, endpointId, call, disconnection(reply)));
  }
}
