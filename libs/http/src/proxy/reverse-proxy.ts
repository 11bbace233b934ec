import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex, Readable } from 'node:stream';
import { ProxyServer } from 'http-proxy-3';

/** Called once when a proxied exchange fails (connection refused or reset, upstream timeout); see {@link ReverseProxy}. */
export type ProxyErrorHandler = (error: NodeJS.ErrnoException) => void;

/** Where one proxied request goes: `host:port` of an HTTP server. */
export interface ProxyCall {
  target: string;
  onError: ProxyErrorHandler;
  /** The body to send instead of the request itself (e.g. the request piped through a byte counter). */
  body?: Readable;
}

/** A proxied HTTP request in flight. */
export interface ProxiedRequest {
  /** Destroys the upstream request (its error, if any, still reaches `onError`). */
  abort(): void;
}

/**
 * An HTTP and WebSocket reverse proxy (http-proxy-3): request and response bodies stream through as they come, in
 * both directions, and a client that goes away destroys the upstream request. Nothing is retried.
 */
export interface ReverseProxy {
  /** Proxies a plain HTTP request; the caller has not read its body. */
  web(request: IncomingMessage, response: ServerResponse, call: ProxyCall): ProxiedRequest;
  /** Proxies a WebSocket upgrade; `head` is the upgrade's first bytes, as Node's `upgrade` event gives them. */
  ws(request: IncomingMessage, socket: Duplex, head: Buffer, call: ProxyCall): void;
}

/** Options of {@link createReverseProxy}. */
export interface ReverseProxyOptions {
  /** Longest silence of the upstream's socket before the exchange fails. */
  upstreamIdleTimeoutMs: number;
  /** Longest time to open the upstream connection. */
  connectTimeoutMs: number;
}

/** A reverse proxy that adds `X-Forwarded-*` and keeps the client's Host header. */
export function createReverseProxy(options: ReverseProxyOptions): ReverseProxy {
  const server = new ProxyServer({
    xfwd: true,
    proxyTimeout: options.upstreamIdleTimeoutMs,
    connectTimeout: options.connectTimeoutMs,
  });
  // Errors reach each call's own handler; this listener only keeps an unclaimed one from crashing the process.
  server.on('error', () => undefined);
  const upstreams = new WeakMap<IncomingMessage, ClientRequest>();
  server.on('proxyReq', (proxyRequest, request) => upstreams.set(request, proxyRequest));
  return {
    web(request, response, call) {
      const options = { target: `http://${call.target}`, ...(call.body ? { buffer: call.body } : {}) };
      server.web(request, response, options, (error) => call.onError(error));
      return { abort: () => upstreams.get(request)?.destroy() };
    },
    ws(request, socket, head, call) {
      server.ws(request, socket, head, { target: `ws://${call.target}` }, (error) => call.onError(error));
    },
  };
}
