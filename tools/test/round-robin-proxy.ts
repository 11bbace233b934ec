import {
  Agent,
  createServer,
  get,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

/** Headers that belong to one connection, not to the request or answer the proxy passes on. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade'];

/** Longest a readiness probe may take before it counts as failed (as a probe's timeoutSeconds). */
const PROBE_TIMEOUT_MS = 1_000;

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const copy = { ...headers };
  for (const name of HOP_BY_HOP) delete copy[name];
  return copy;
}

interface Replica {
  port: number;
  ready: boolean;
}

/** True when GET /readyz on `port` answers 200 within PROBE_TIMEOUT_MS. */
function probe(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get({ host: '127.0.0.1', port, path: '/readyz', agent: false, timeout: PROBE_TIMEOUT_MS }, (answer) => {
      answer.resume();
      resolve(answer.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

/**
 * A small HTTP load balancer in front of an app's replicas, as a Kubernetes Service with readiness probes is: it
 * probes each replica's /readyz every `probeIntervalMs` and sends each request, round-robin, to a replica whose last
 * probe answered 200, over kept-alive connections. An upstream failure (connection refused, or closed before the
 * answer) is never retried: the client gets 502 and the request counts as failed, with its reason.
 */
export class RoundRobinProxy {
  /** Requests forwarded, and those that failed on the way (with what happened). */
  readonly counts = { forwarded: 0, failures: [] as string[] };
  private readonly replicas: Replica[];
  private readonly agent = new Agent({ keepAlive: true });
  private readonly server: Server;
  private next = 0;
  private stopped = false;
  private probing: Promise<void> = Promise.resolve();

  private constructor(
    ports: number[],
    private readonly probeIntervalMs: number,
  ) {
    this.replicas = ports.map((port) => ({ port, ready: false }));
    this.server = createServer((req, res) => this.forward(req, res));
  }

  /** Listens on a free loopback port and starts probing the replicas listening on `ports`. */
  static async start(ports: number[], probeIntervalMs: number): Promise<RoundRobinProxy> {
    const proxy = new RoundRobinProxy(ports, probeIntervalMs);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    proxy.probing = proxy.probeLoop();
    return proxy;
  }

  /** The balancer's base URL. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** True while the replica on `port` is in rotation (its last probe answered 200). */
  inRotation(port: number): boolean {
    return this.replicas.some((replica) => replica.port === port && replica.ready);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.probing;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.agent.destroy();
  }

  private async probeLoop(): Promise<void> {
    while (!this.stopped) {
      await Promise.all(
        this.replicas.map(async (replica) => {
          replica.ready = await probe(replica.port);
        }),
      );
      await delay(this.probeIntervalMs);
    }
  }

  private pick(): Replica | undefined {
    const ready = this.replicas.filter((replica) => replica.ready);
    if (ready.length === 0) return undefined;
    this.next = (this.next + 1) % ready.length;
    return ready[this.next];
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const replica = this.pick();
    if (!replica) return this.fail(res, `${req.method} ${req.url}: no replica in rotation`);
    this.counts.forwarded++;
    let clientGone = false;
    const options = {
      host: '127.0.0.1',
      port: replica.port,
      method: req.method,
      path: req.url,
      headers: endToEnd(req.headers),
      agent: this.agent,
    };
    const upstream = request(options, (answer) => {
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(res);
      answer.on('close', () => {
        if (!answer.complete && !clientGone)
          this.fail(res, `${req.method} ${req.url} → :${replica.port}: answer cut off`);
      });
    });
    upstream.on('error', (error) => {
      // A client hanging up (a worker stopping its long poll) ends the upstream request: not a failure.
      if (!clientGone) this.fail(res, `${req.method} ${req.url} → :${replica.port}: ${error.message}`);
    });
    res.on('close', () => {
      if (res.writableFinished) return;
      clientGone = true;
      upstream.destroy();
    });
    req.pipe(upstream);
  }

  private fail(res: ServerResponse, what: string): void {
    this.counts.failures.push(what);
    if (res.headersSent) res.destroy();
    else res.writeHead(502, { 'content-type': 'text/plain' }).end(what);
  }
}
