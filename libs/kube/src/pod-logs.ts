import { Writable } from 'node:stream';
import { type CoreV1Event, Log } from '@kubernetes/client-node';
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

/** A writable that splits the `timestamps=true` log body into lines. */
function lineSplitter(options: ContainerLogOptions): Writable {
  let rest = '';
  return new Writable({
    decodeStrings: false,
    write(chunk: Buffer | string, _encoding, callback) {
      const parts = (rest + chunk.toString()).split('\n');
      rest = parts.pop() ?? '';
      for (const part of parts) {
        const space = part.indexOf(' ');
        if (space > 0) options.onLine(part.slice(0, space), part.slice(space + 1).replace(/\r$/, ''));
      }
      callback();
    },
  });
}

/**
 * Follows a container's log through the apiserver's `pods/log` subresource (`follow=true&timestamps=true`); the
 * apiserver proxies the node's kubelet. Needs `get` on `pods/log` in the namespace.
 */
export function followContainerLog(clients: KubeClients, options: ContainerLogOptions): KubeStreamHandle {
  const controller = new AbortController();
  let ended = false;
  const end = (error?: Error): void => {
    if (ended) return;
    ended = true;
    options.onEnd(error);
  };
  const sink = lineSplitter(options);
  sink.on('finish', () => end());
  sink.on('error', (error) => end(error));
  sink.on('unpipe', () => end());
  let request: AbortController | null = null;
  new Log(clients.kubeConfig)
    .log(options.namespace, options.pod, options.container, sink, {
      follow: true,
      timestamps: true,
      ...(options.tailLines !== undefined ? { tailLines: options.tailLines } : {}),
      ...(options.sinceTime !== undefined ? { sinceTime: options.sinceTime } : {}),
    })
    .then(
      (abort) => {
        request = abort;
        if (controller.signal.aborted) abort.abort();
      },
      (error: unknown) => end(error instanceof Error ? error : new Error(String(error))),
    );
  return {
    close: () => {
      controller.abort();
      request?.abort();
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
