import { type ClientRequest, type IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { CoreV1Event } from '@kubernetes/client-node';
import type { KubeClients } from './client';

/** An open request to the apiserver; `close` aborts it at once (the apiserver then ends its kubelet stream). */
export interface KubeStreamHandle {
  close(): void;
}

/** What {@link followContainerLog} reads. */
export interface ContainerLogOptions {
  namespace: string;
  pod: string;
  container: string;
  /** Lines from the end to start with; undefined reads from `sinceTime` or from the container's start. */
  tailLines?: number;
  /** RFC 3339 (seconds precision at the kubelet). */
  sinceTime?: string;
  /** Each complete line, with the timestamp the kubelet put in front of it. */
  onLine: (timestamp: string, text: string) => void;
  /** The stream ended (the container stopped, the pod went away, the request failed or was closed). */
  onEnd: (error?: Error) => void;
}

/** The `pods/log` URL of the request. */
function logUrl(server: string, options: ContainerLogOptions): URL {
  const url = new URL(
    `${server}/api/v1/namespaces/${encodeURIComponent(options.namespace)}/pods/${encodeURIComponent(options.pod)}/log`,
  );
  url.searchParams.set('container', options.container);
  url.searchParams.set('follow', 'true');
  url.searchParams.set('timestamps', 'true');
  if (options.tailLines !== undefined) url.searchParams.set('tailLines', String(options.tailLines));
  if (options.sinceTime !== undefined) url.searchParams.set('sinceTime', options.sinceTime);
  return url;
}

/** Hands each complete `<timestamp> <text>` line of a `timestamps=true` body to `onLine`. */
function readLines(response: IncomingMessage, options: ContainerLogOptions): void {
  let rest = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    for (const part of parts) {
      const space = part.indexOf(' ');
      if (space > 0) options.onLine(part.slice(0, space), part.slice(space + 1).replace(/\r$/, ''));
    }
  });
}

/** The apiserver's refusal (a Status object) as an error. */
function refusal(response: IncomingMessage, done: (error: Error) => void): void {
  let body = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    if (body.length < 4096) body += chunk;
  });
  response.on('end', () => {
    let message = body.trim();
    try {
      message = (JSON.parse(body) as { message?: string }).message ?? message;
    } catch {
      // not a Status: keep the text
    }
    done(new Error(`pods/log answered ${response.statusCode}: ${message}`));
  });
}

/**
 * Follows a container's log through the apiserver's `pods/log` subresource (`follow=true&timestamps=true`); the
 * apiserver proxies the node's kubelet. The request has a connection of its own, so `close` ends it at once (a
 * pooled keep-alive connection would linger). Needs `get` on `pods/log` in the namespace.
 */
export function followContainerLog(clients: KubeClients, options: ContainerLogOptions): KubeStreamHandle {
  let request: ClientRequest | null = null;
  let closed = false;
  let ended = false;
  const end = (error?: Error): void => {
    if (ended) return;
    ended = true;
    options.onEnd(error);
  };
  const start = async (): Promise<void> => {
    const cluster = clients.kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('The kubeconfig has no current cluster');
    const url = logUrl(cluster.server, options);
    const settings: RequestOptions = { method: 'GET', agent: false, headers: {} };
    await clients.kubeConfig.applyToHTTPSOptions(settings);
    await clients.limiter.acquire();
    if (closed) return;
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    request = send(url, settings, (response) => {
      response.on('error', (error) => end(error));
      response.on('close', () => end());
      if (response.statusCode === 200) readLines(response, options);
      else refusal(response, end);
    });
    request.on('error', (error) => end(error));
    request.end();
  };
  start().catch((error: unknown) => end(error instanceof Error ? error : new Error(String(error))));
  return {
    close: () => {
      closed = true;
      request?.destroy();
      end();
    },
  };
}

/** What {@link watchPodEvents} reports. */
export interface PodEventsOptions {
  namespace: string;
  pod: string;
  /** The events about the pod when the stream opened. */
  onList: (events: CoreV1Event[]) => void;
  /** Each event added or updated after that. */
  onEvent: (event: CoreV1Event) => void;
  onEnd: (error?: Error) => void;
}

/**
 * Lists then watches the Events whose involved object is the pod (by name: a restarted workload keeps its pod name,
 * so its earlier generations' events are included). Needs `list` and `watch` on `events` in the namespace.
 */
export function watchPodEvents(clients: KubeClients, options: PodEventsOptions): KubeStreamHandle {
  let closed = false;
  let watch: AbortController | null = null;
  const fieldSelector = `involvedObject.kind=Pod,involvedObject.name=${options.pod}`;
  const start = async (): Promise<void> => {
    const list = await clients.core.listNamespacedEvent({ namespace: options.namespace, fieldSelector });
    if (closed) return;
    options.onList(list.items);
    const path = `/api/v1/namespaces/${options.namespace}/events`;
    const query = { fieldSelector, resourceVersion: list.metadata?.resourceVersion, allowWatchBookmarks: false };
    watch = await clients.watch.watch(
      path,
      query,
      (phase, object) => {
        if (!closed && (phase === 'ADDED' || phase === 'MODIFIED')) options.onEvent(object as CoreV1Event);
      },
      (error: unknown) => {
        if (!closed) options.onEnd(error instanceof Error ? error : undefined);
      },
    );
    if (closed) watch.abort();
  };
  start().catch((error: unknown) => {
    if (!closed) options.onEnd(error instanceof Error ? error : new Error(String(error)));
  });
  return {
    close: () => {
      closed = true;
      watch?.abort();
    },
  };
}

/** When an Event happened: its newest occurrence. */
export function eventTime(event: CoreV1Event): Date | null {
  const when =
    event.series?.lastObservedTime ??
    event.lastTimestamp ??
    event.eventTime ??
    event.firstTimestamp ??
    event.metadata?.creationTimestamp;
  if (when === undefined || when === null) return null;
  return when instanceof Date ? when : new Date(String(when));
}
