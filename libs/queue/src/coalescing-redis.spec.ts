import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { cleanupRedisPrefix, testRedisPrefix } from '@runplane/testing';
import { CoalescingRedis } from './coalescing-redis';
import { createRedis, type Redis } from './index';

const REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * A TCP relay between a client and the real Redis that counts the client's writes as they arrive and, while
 * `holdReplies` is set, keeps Redis's replies from the client until it is cleared.
 */
class Relay {
  readonly writes: Buffer[] = [];
  private readonly held: Buffer[] = [];
  private readonly sockets = new Set<Socket>();
  private client?: Socket;
  private holding = false;
  private constructor(private readonly server: Server) {}

  static async start(): Promise<Relay> {
    const server = createServer();
    const relay = new Relay(server);
    server.on('connection', (client) => relay.relay(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  get url(): string {
    return `redis://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  holdReplies(hold: boolean): void {
    this.holding = hold;
    if (hold) return;
    for (const reply of this.held.splice(0)) this.client?.write(reply);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: Socket): void {
    const redis = connect(6379, '127.0.0.1');
    this.client = client;
    this.sockets.add(client).add(redis);
    client.on('data', (data: Buffer) => {
      this.writes.push(data);
      redis.write(data);
    });
    redis.on('data', (data: Buffer) => (this.holding ? this.held.push(data) : client.write(data)));
  }
}

/** The client's writes from `from` on, as text. */
const writtenSince = (relay: Relay, from: number): string[] => relay.writes.slice(from).map((data) => data.toString());

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('CoalescingRedis', () => {
  const prefix = testRedisPrefix('coalescing');
  let relay: Relay;
  let redis: Redis;
  let direct: Redis;

  beforeAll(async () => {
    direct = createRedis(REDIS_URL);
    relay = await Relay.start();
    redis = createRedis(relay.url, { coalesceWrites: true });
    await redis.ping();
  });

  afterAll(async () => {
    redis.disconnect();
    await relay.close();
    await cleanupRedisPrefix(direct, prefix);
    direct.disconnect();
  });

  it('is what createRedis makes with coalesceWrites, and only then', () => {
    expect(redis).toBeInstanceOf(CoalescingRedis);
    expect(direct).not.toBeInstanceOf(CoalescingRedis);
  });

  it('writes the commands issued in one turn with one socket write, in order', async () => {
    const key = `${prefix}list`;
    const from = relay.writes.length;
    const pushes = Array.from({ length: 20 }, (_, i) => redis.rpush(key, String(i)));
    await Promise.all(pushes);
    const written = writtenSince(relay, from);
    expect(written).toHaveLength(1);
    expect(written[0]?.match(/RPUSH/gi)).toHaveLength(20);
    expect(await direct.lrange(key, 0, -1)).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
  });

  it("writes a later turn's commands before the earlier turn's replies arrive", async () => {
    const key = `${prefix}counter`;
    const from = relay.writes.length;
    relay.holdReplies(true);
    const first = redis.incr(key);
    await nextTurn();
    await nextTurn();
    const second = redis.incr(key);
    // Both turns' writes reach Redis while no reply has reached the client.
    for (let turn = 0; turn < 100 && relay.writes.length - from < 2; turn += 1) await nextTurn();
    expect(writtenSince(relay, from)).toHaveLength(2);
    relay.holdReplies(false);
    expect(await Promise.all([first, second])).toEqual([1, 2]);
  });

  it('keeps the order of commands across turns', async () => {
    const key = `${prefix}ordered`;
    const sent: Promise<unknown>[] = [];
    for (let turn = 0; turn < 5; turn += 1) {
      sent.push(redis.rpush(key, `${turn}a`), redis.rpush(key, `${turn}b`));
      await nextTurn();
    }
    await Promise.all(sent);
    expect(await redis.lrange(key, 0, -1)).toEqual(['0a', '0b', '1a', '1b', '2a', '2b', '3a', '3b', '4a', '4b']);
  });

  it('queues commands issued before the connection is ready and sends them once it is', async () => {
    const early = createRedis(REDIS_URL, { coalesceWrites: true });
    try {
      const key = `${prefix}early`;
      const replies = await Promise.all([early.set(key, 'x'), early.get(key)]);
      expect(replies).toEqual(['OK', 'x']);
    } finally {
      early.disconnect();
    }
  });
});
