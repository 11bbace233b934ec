import { clientGoneSignal, type FastifyReply, type PlainRoute, type RouteContext } from '@runplane/http';
import type { Principal } from '@runplane/contracts';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { clientRoute } from '../client/client-routes';
import type { JobApiService } from '../client/job-api.service';
import type { ClientPolicy } from '../http/job-api-guards';
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

// Every request is a job of the endpoint, even a GET of /v1/models: a write.
const OPENAI: ClientPolicy = { access: 'write', limit: 'openai' };

/** The wildcard parameter: the path after `/openai/v1/`. */
function pathOf(params: RouteContext<Principal, undefined, undefined>['params']): string {
  return params['*'] ?? '';
}

async function send(reply: FastifyReply, answer: OpenAiAnswer): Promise<FastifyReply> {
  switch (answer.kind) {
    case 'json':
      // OpenAI's own clients (openai-node, openai-python) read this header before their status-based retry rule.
      if (answer.retry === false) void reply.header('x-should-retry', 'false');
      return reply
        .status(answer.status)
        .type('application/json; charset=utf-8')
        .send(JSON.stringify(answer.body ?? null));
    case 'events': {
      const body = Readable.from(answer.events, { objectMode: false });
      void reply.status(200).headers(EVENT_STREAM_HEADERS).send(body);
      // Resolving only when the last event is out keeps the request's concurrency slot for the whole stream.
      await finished(body).catch(() => undefined);
      return reply;
    }
    case 'gone':
      return reply.status(CLIENT_GONE).send();
  }
}

/**
 * RunPod's OpenAI-compatible route, `/v2/{endpointId}/openai/v1/<path>` (GET and POST), through the job API's client
 * guards: each request is a job of the endpoint (`{openai_route, openai_input}`) whose output is the HTTP answer, or
 * whose stream chunks are the SSE body. Errors before a job exists (auth, unknown endpoint, bad JSON, limits) keep the
 * job API's shape; a job that fails answers OpenAI's `{"error": {message, type, code}}` with 500.
 */
export function openAiRoutes(jobs: JobApiService): PlainRoute<ClientPolicy, Principal>[] {
  const relay = new OpenAiRelay(jobs);
  const relayTo = async (context: RouteContext<Principal, undefined, undefined>, call: OpenAiCall) => {
    const { caller, params, reply } = context;
    return send(reply, await relay.answer(caller, params.endpointId ?? '', call, clientGoneSignal(reply)));
  };
  return [
    clientRoute({
      method: 'GET',
      url: '/v2/:endpointId/openai/v1/*',
      policy: OPENAI,
      handle: (context) => relayTo(context, openAiGetCall(pathOf(context.params))),
    }),
    clientRoute({
      method: 'POST',
      url: '/v2/:endpointId/openai/v1/*',
      policy: OPENAI,
      handle: (context) => relayTo(context, openAiPostCall(pathOf(context.params), context.request.body)),
    }),
  ];
}
