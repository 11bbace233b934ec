import { randomUUID } from 'node:crypto';
import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorCode } from '@runplane/contracts';
import type { Logger } from '@runplane/observability';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../errors/api-exception.filter';
import { errorBody, type ErrorStyle } from '../errors/error-body';
import { toHttpError } from '../errors/http-error';
import { REQUEST_ID_HEADER } from './request-id';

interface ClientErrorView {
  status: number;
  code: ErrorCode;
  message: string;
}

/** Errors Node's HTTP parser raises on a connection, before (or while) a request is read. */
function clientErrorView(error: NodeJS.ErrnoException): ClientErrorView {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'REQUEST_TIMEOUT', message: 'Request not received in time' };
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'HEADERS_TOO_LARGE', message: 'Request line and headers are larger than 16 KB' };
    default:
      return { status: 400, code: 'VALIDATION_FAILED', message: 'Malformed HTTP request' };
  }
}

/** An edge error as a {@link EdgeErrorWriter} sees it. */
export interface EdgeError extends ClientErrorView {
  requestId: string;
}

/** An error answer's content type and body. */
export interface EdgeAnswer {
  contentType: string;
  body: string;
}

/**
 * Writes an edge error on `path` in the shape of the API that path belongs to, or returns undefined to keep the
 * service's own style: for a service that serves two APIs with different error shapes (the gateway's v1 and v2).
 */
export type EdgeErrorWriter = (path: string, error: EdgeError) => EdgeAnswer | undefined;

/** The request target of the request line Node had read when it gave up on a connection, if it got that far. */
function requestTargetOf(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): string | undefined {
  const line = error.rawPacket?.subarray(0, 8192).toString('latin1').split('\r\n', 1)[0] ?? '';
  return /^[A-Z]+ (\/\S*)/.exec(line)?.[1];
}

/** A whole HTTP/1.1 answer written straight to the socket: there is no request object to answer through. */
function rawAnswer(view: ClientErrorView, answer: EdgeAnswer, requestId: string): string {
  const { body, contentType } = answer;
  return [
    `HTTP/1.1 ${view.status} ${STATUS_CODES[view.status] ?? 'Error'}`,
    `content-type: ${contentType}`,
    `content-length: ${Buffer.byteLength(body)}`,
    `${REQUEST_ID_HEADER}: ${requestId}`,
    'connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Whether an answer is already going out on the connection (an early error, before the body was read): writing
 * another one would corrupt it, so Node itself only closes such a connection.
 */
function answerStarted(socket: Socket): boolean {
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  return inFlight?.headersSent === true;
}

/**
 * Answers the errors raised before a route runs in the API's own error shape, with a request id, as every other
 * answer: Fastify's router errors (a URL that is not valid percent-encoding, a path parameter over 100 characters)
 * and Node's connection errors (a request line and headers over 16 KB, a request not received within the body
 * timeout, unparsable HTTP), which Fastify and Node would otherwise answer in their own shapes or not at all.
 */
export class EdgeErrors {
  /** Id of the request being read on each connection, so a timeout answer names the request that timed out. */
  private readonly reading = new WeakMap<Socket, string>();

  constructor(
    readonly style: ErrorStyle,
    readonly logger: Logger,
    private readonly writer?: EdgeErrorWriter,
  ) {}

  /** Fastify's router errors (FST_ERR_BAD_URL, FST_ERR_MAX_PARAM_LENGTH): no hook ran, so the id header is set here. */
  readonly frameworkErrors = (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    const view = toHttpError(error);
    const answer = view && this.writer?.(request.url, { ...view, requestId: request.id });
    if (view && answer) {
      void reply.status(view.status).header('content-type', answer.contentType).send(answer.body);
      return;
    }
    sendError(this, error, { request, reply });
  };

  /** Node's `clientError`: answers on the socket itself and closes it, as the rest of the request cannot be read. */
  readonly clientErrorHandler = (error: NodeJS.ErrnoException, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const view = clientErrorView(error);
    const requestId = this.reading.get(socket) ?? randomUUID();
    this.logger.debug({ err: error, requestId }, 'client error');
    if (!socket.writable || answerStarted(socket)) {
      socket.destroy();
      return;
    }
    socket.end(rawAnswer(view, this.answerOf(view, requestTargetOf(error), requestId), requestId), () =>
      socket.destroy(),
    );
  };

  private answerOf(view: ClientErrorView, target: string | undefined, requestId: string): EdgeAnswer {
    const written = target === undefined ? undefined : this.writer?.(target, { ...view, requestId });
    if (written) return written;
    const body = JSON.stringify(errorBody(this.style, view.message, view.code, requestId));
    return { contentType: 'application/json; charset=utf-8', body };
  }

  /** Remembers which request each connection is reading, from its headers until its answer. */
  track(fastify: FastifyInstance): void {
    fastify.addHook('onRequest', (request, _reply, done) => {
      this.reading.set(request.raw.socket, request.id);
      done();
    });
    fastify.addHook('onResponse', (request, _reply, done) => {
      this.reading.delete(request.raw.socket);
      done();
    });
  }
}
