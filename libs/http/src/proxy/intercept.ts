import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';

/**
 * Requests an app serves outside its routes and its body parsing (a reverse proxy chosen by Host): claimed requests
 * skip the routes, hooks after `onRequest`, the JSON body limit and the error filter; their body is left unread for
 * the interceptor to stream.
 */
export interface RequestInterceptor {
  /** Whether a request is the interceptor's, from its headers alone. */
  claims(request: IncomingMessage): boolean;
  /** Answers a claimed request on the raw response. */
  handle(request: IncomingMessage, response: ServerResponse, requestId: string): void;
  /** Takes over a claimed WebSocket (or other) upgrade. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
}

/** Node 24's hook deciding whether a request with `Upgrade` goes to the `upgrade` event or to the routes. */
type UpgradeDecider = Server & { shouldUpgradeCallback: (request: IncomingMessage) => boolean };

/**
 * Hands the interceptor's requests to it before routing (an `onRequest` hook that hijacks the reply, after the
 * request id hook, so every answer still carries one) and its upgrades through the server's `upgrade` event. Other
 * requests asking for an upgrade stay ordinary requests of the routes, as without a listener.
 */
export function interceptRequests(fastify: FastifyInstance, interceptor: RequestInterceptor): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    if (!interceptor.claims(request.raw)) return done();
    void reply.hijack();
    interceptor.handle(request.raw, reply.raw, request.id);
    done();
  });
  const server = fastify.server as UpgradeDecider;
  server.shouldUpgradeCallback = (request) => interceptor.claims(request);
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (interceptor.claims(request)) interceptor.upgrade(request, socket, head);
    else socket.destroy();
  });
}
