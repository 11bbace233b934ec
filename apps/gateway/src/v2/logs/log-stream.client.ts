import { randomBytes } from 'node:crypto';
import type { BeforeApplicationShutdown, OnApplicationShutdown } from '@nestjs/common';
import {
  DomainError,
  type LogLine,
  type LogStreamMessage,
  logStreamChannels,
  logStreamMessage,
  type LogStreamOpen,
} from '@runplane/contracts';
import type { Redis } from '@runplane/queue';

/** Where an open stream's lines go. */
export interface LogStreamSink {
  lines(lines: LogLine[]): void;
  /** The scheduler sent a heartbeat (the stream is quiet). */
  heartbeat(): void;
  /** The scheduler ended the stream (its upstream failed). */
  ended(message: string): void;
}

/** An open stream; `close` tells the scheduler to release the upstream at once. */
export interface LogStreamSession {
  close(): Promise<void>;
}

/** Settings of {@link LogStreamClient}. */
export interface LogStreamClientOptions {
  /** A new connection to the deployment's Redis (one subscribes, one publishes). */
  connect: () => Redis;
  /** The deployment's key prefix, which namespaces the channels. */
  redisPrefix: string;
  /** How long a scheduler replica has to take a stream before the request fails with 503. */
  openTimeoutMs?: number;
  /**
   * A stream that hears nothing (no line, no heartbeat: the scheduler sends one every 5 s) for this long ends with an
   * error event, since its scheduler replica is gone; the client reconnects with Last-Event-ID.
   */
  silenceMs?: number;
}

const SILENT = 'The scheduler serving this stream stopped answering; reconnect with Last-Event-ID';

/**
 * The gateway's side of the log streams (see `@runplane/contracts` log-stream): one subscriber connection shared by
 * every stream of this gateway, each stream on its own channel. Subscribing comes before the open request, so no
 * line is missed; unsubscribing plus a close message end the scheduler's upstream at once.
 */
export class LogStreamClient implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly channels;
  private readonly handlers = new Map<string, (message: LogStreamMessage) => void>();
  /** The sinks of open streams, ended when the gateway shuts down (an open stream would hold its HTTP server). */
  private readonly sinks = new Map<string, LogStreamSink>();
  /** When each stream last heard from its scheduler. */
  private readonly heard = new Map<string, number>();
  private watchdog: NodeJS.Timeout | null = null;
  private subscriber: Redis | null = null;
  private publisher: Redis | null = null;

  constructor(private readonly options: LogStreamClientOptions) {
    this.channels = logStreamChannels(options.redisPrefix);
  }

  /** Opens a stream; resolves once a scheduler replica took it. */
  async open(request: Omit<LogStreamOpen, 'streamId'>, sink: LogStreamSink): Promise<LogStreamSession> {
    const { subscriber, publisher } = this.connections();
    const streamId = randomBytes(12).toString('base64url');
    const channel = this.channels.out(streamId);
    const close = async (): Promise<void> => {
      this.sinks.delete(channel);
      this.heard.delete(channel);
      if (!this.handlers.delete(channel)) return;
      await Promise.allSettled([subscriber.unsubscribe(channel), publisher.publish(this.channels.close, streamId)]);
    };
    const opened = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        void close();
        reject(new DomainError('NO_CAPACITY', 'No scheduler took the log stream in time; retry shortly'));
      }, this.options.openTimeoutMs ?? 5_000);
      this.handlers.set(channel, (message) => {
        if (message.type === 'opened') {
          clearTimeout(timer);
          resolve();
        } else if (message.type === 'lines') sink.lines(message.lines);
        else if (message.type === 'heartbeat') sink.heartbeat();
        else {
          void close();
          sink.ended(message.message);
        }
      });
    });
    // Handled here so a timeout while subscribing is not an unhandled rejection; awaited below.
    opened.catch(() => undefined);
    try {
      await subscriber.subscribe(channel);
      await publisher.publish(this.channels.open, JSON.stringify({ ...request, streamId }));
    } catch (error) {
      await close();
      throw error;
    }
    await opened;
    this.sinks.set(channel, sink);
    this.heard.set(channel, Date.now());
    return { close };
  }

  /** Ends every open stream before the HTTP server closes; clients reconnect elsewhere with Last-Event-ID. */
  beforeApplicationShutdown(): void {
    for (const sink of this.sinks.values()) sink.ended('The gateway is shutting down; reconnect with Last-Event-ID');
    this.sinks.clear();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = null;
    this.handlers.clear();
    await Promise.all([this.subscriber?.quit(), this.publisher?.quit()].map((p) => p?.catch(() => undefined)));
    this.subscriber = null;
    this.publisher = null;
  }

  private connections(): { subscriber: Redis; publisher: Redis } {
    if (!this.subscriber || !this.publisher) {
      this.publisher = this.options.connect();
      const subscriber = this.options.connect();
      subscriber.on('message', (channel: string, text: string) => this.received(channel, text));
      this.subscriber = subscriber;
      const silenceMs = this.options.silenceMs ?? 15_000;
      this.watchdog = setInterval(() => this.endSilent(silenceMs), Math.max(50, Math.floor(silenceMs / 3)));
      this.watchdog.unref();
    }
    return { subscriber: this.subscriber, publisher: this.publisher };
  }

  /** Ends the streams whose scheduler went silent (killed, paused, cut off from Redis). */
  private endSilent(silenceMs: number): void {
    const now = Date.now();
    for (const [channel, at] of this.heard) {
      if (now - at > silenceMs) this.handlers.get(channel)?.({ type: 'error', message: SILENT });
    }
  }

  private received(channel: string, text: string): void {
    const handler = this.handlers.get(channel);
    if (!handler) return;
    if (this.heard.has(channel)) this.heard.set(channel, Date.now());
    const parsed = logStreamMessage.safeParse(JSON.parse(text));
    if (parsed.success) handler(parsed.data);
  }
}
