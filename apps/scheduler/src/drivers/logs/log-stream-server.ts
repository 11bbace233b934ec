import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import {
  type LogStreamMessage,
  logStreamChannels,
  logStreamOpen,
  type LogStreamOpen,
  parseLogCursor,
} from '@runplane/contracts';
import { createRedis, type Redis } from '@runplane/queue';
import type { ComputeDriver, LogFollower } from '../compute-driver';

/** Settings of the scheduler's side of the log streams. */
export interface LogStreamServerOptions {
  redisUrl: string;
  redisPrefix: string;
  driver: ComputeDriver;
  /** Names this replica in the claim key. */
  replicaId: string;
  /** A quiet stream sends a heartbeat this often; one that reaches no gateway ends the stream. */
  heartbeatMs?: number;
  log: (message: string, error?: unknown) => void;
}

interface OpenStream {
  follower: LogFollower | null;
  timer: NodeJS.Timeout;
  lastSentAt: number;
}

/** How long a claim outlives its stream's end (another replica must not take a stream a gateway closed). */
const CLAIM_TTL_MS = 60_000;

/**
 * Serves log streams to gateways over Redis pub/sub (see `@runplane/contracts` log-stream). Every replica hears an
 * open request; the first to set the stream's claim key serves it from its compute driver. A stream ends when its
 * gateway publishes a close, when a publish reaches no subscriber (the gateway went away), or when the upstream
 * fails; each end closes the driver's upstream (file watch or apiserver request) at once.
 */
export class LogStreamServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly channels;
  private readonly streams = new Map<string, OpenStream>();
  private subscriber: Redis | null = null;
  private publisher: Redis | null = null;

  constructor(private readonly options: LogStreamServerOptions) {
    this.channels = logStreamChannels(options.redisPrefix);
  }

  /** Streams this replica serves now. */
  get openStreams(): number {
    return this.streams.size;
  }

  async onApplicationBootstrap(): Promise<void> {
    this.publisher = createRedis(this.options.redisUrl);
    this.subscriber = createRedis(this.options.redisUrl);
    this.subscriber.on('message', (channel: string, message: string) => this.received(channel, message));
    await this.subscriber.subscribe(this.channels.open, this.channels.close);
  }

  async onApplicationShutdown(): Promise<void> {
    for (const streamId of [...this.streams.keys()]) this.end(streamId);
    await Promise.all([this.subscriber?.quit(), this.publisher?.quit()].map((p) => p?.catch(() => undefined)));
    this.subscriber = null;
    this.publisher = null;
  }

  private received(channel: string, message: string): void {
    if (channel === this.channels.close) {
      this.end(message);
      return;
    }
    let request: LogStreamOpen;
    try {
      request = logStreamOpen.parse(JSON.parse(message));
    } catch (error) {
      this.options.log('ignoring a malformed log stream request', error);
      return;
    }
    this.claim(request).catch((error: unknown) => this.options.log(`log stream ${request.streamId} failed`, error));
  }

  private async claim(request: LogStreamOpen): Promise<void> {
    const claimed = await this.publisher?.set(
      this.channels.claim(request.streamId),
      this.options.replicaId,
      'PX',
      CLAIM_TTL_MS,
      'NX',
    );
    if (claimed !== 'OK' || this.streams.has(request.streamId)) return;
    this.open(request);
  }

  private open(request: LogStreamOpen): void {
    const { streamId } = request;
    const heartbeatMs = this.options.heartbeatMs ?? 5_000;
    const stream: OpenStream = {
      follower: null,
      lastSentAt: Date.now(),
      timer: setInterval(() => {
        if (Date.now() - stream.lastSentAt >= heartbeatMs) this.send(streamId, { type: 'heartbeat' });
      }, heartbeatMs),
    };
    this.streams.set(streamId, stream);
    this.send(streamId, { type: 'opened' });
    const after = request.after ? parseLogCursor(request.after) : null;
    stream.follower = this.options.driver.followLogs({
      podId: request.podId,
      tail: request.tail,
      since: request.since ? new Date(request.since) : null,
      after,
      sources: request.sources,
      onLines: (lines) => this.send(streamId, { type: 'lines', lines }),
      onError: (error) => {
        this.send(streamId, { type: 'error', message: error.message });
        this.end(streamId);
      },
    });
    // A close that came while the follower was being made.
    if (!this.streams.has(streamId)) stream.follower.close();
  }

  private send(streamId: string, message: LogStreamMessage): void {
    const stream = this.streams.get(streamId);
    if (!stream || !this.publisher) return;
    stream.lastSentAt = Date.now();
    this.publisher.publish(this.channels.out(streamId), JSON.stringify(message)).then(
      (receivers) => {
        if (receivers === 0) this.end(streamId);
      },
      (error: unknown) => {
        this.options.log(`log stream ${streamId}: publish failed`, error);
        this.end(streamId);
      },
    );
  }

  private end(streamId: string): void {
    const stream = this.streams.get(streamId);
    if (!stream) return;
    this.streams.delete(streamId);
    clearInterval(stream.timer);
    stream.follower?.close();
  }
}
