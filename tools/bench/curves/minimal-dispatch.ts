// The workers curve's dispatch floor (minimal-dispatch-server.ts, its own process): takes parked on a bare Fastify
// server, and a "submit" that is one Redis script writing the job and publishing it to that server, which answers its
// oldest take. Measured beside Runplane's dispatch in the same run, it is what this machine gives the same hops.
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import type { Redis } from '@runplane/queue';
import { startServer } from '../bench-process';
import { INPUT } from '../jobs/router';

/** Parked takes: {@link next} resolves when any of them is answered with a job. */
export interface Takers {
  next(): Promise<void>;
  stop(): Promise<void>;
}

/** A running minimal dispatch server. */
export interface MinimalDispatch {
  base: string;
  /** The server's process. */
  pid: number;
  channel: string;
  close(): Promise<void>;
}

/** Starts minimal-dispatch-server.ts as its own process, subscribed to a channel of its own, takes parked `waitMs`. */
export async function startMinimalDispatch(redisUrl: string, waitMs: number): Promise<MinimalDispatch> {
  const channel = `bench:minimal-dispatch:${randomUUID()}`;
  const env = { REDIS_URL: redisUrl, MINIMAL_CHANNEL: channel, MINIMAL_TAKE_WAIT_MS: String(waitMs) };
  const server = await startServer('tools/bench/curves/minimal-dispatch-server.ts', env);
  return { base: server.base, pid: server.pid, channel, close: server.close };
}

/** `count` clients, each looping a GET /take on the minimal server. */
export function parkMinimalTakers(server: MinimalDispatch, count: number): Takers {
  const controller = new AbortController();
  let arrived: () => void = () => undefined;
  const loop = async (): Promise<void> => {
    while (!controller.signal.aborted) {
      const response = await request(`${server.base}/take`, { signal: controller.signal }).catch(() => undefined);
      const text = (await response?.body.text().catch(() => '')) ?? '';
      if (response?.statusCode === 200 && text.length > 0) arrived();
    }
  };
  const loops = Array.from({ length: count }, loop);
  return {
    next: () => new Promise<void>((resolve) => (arrived = resolve)),
    stop: async () => {
      controller.abort();
      await Promise.all(loops);
    },
  };
}

/** Writes a job (expiring in a minute) and publishes it to the server: one script, one round trip. */
export const FLOOR_SUBMIT = `redis.call('SET', KEYS[1], ARGV[1], 'PX', 60000)
return redis.call('PUBLISH', KEYS[2], ARGV[1])`;

/** The minimal server's counterpart of a Runplane submit: one job written and published. */
export async function minimalSubmit(redis: Redis, server: MinimalDispatch): Promise<void> {
  const id = randomUUID();
  const job = JSON.stringify({ id, input: INPUT });
  await redis.eval(FLOOR_SUBMIT, 2, `${server.channel}:job:${id}`, server.channel, job);
}
