import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of the test apiserver, so a test can cut the scheduler's connections (its watches die with
 * ECONNRESET) and refuse new ones (an outage) without touching the shared control plane. TLS passes through.
 */
export class ApiserverProxy {
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  private refusing = false;

  private constructor(private readonly target: URL) {
    this.server = createServer((client) => this.forward(client));
  }

  /** Listens on a free loopback port and forwards to the apiserver at `server` (https://host:port). */
  static async start(server: string): Promise<ApiserverProxy> {
    const proxy = new ApiserverProxy(new URL(server));
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** The kubeconfig text with its server pointed at this proxy. */
  kubeconfigVia(kubeconfig: string): string {
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP address');
    const server = this.target.origin;
    return kubeconfig.split(server).join(`${this.target.protocol}//${this.target.hostname}:${address.port}`);
  }

  /** An outage: every open connection is reset and new ones are refused until `restore()`. */
  cut(): void {
    this.refusing = true;
    for (const socket of this.sockets) socket.resetAndDestroy();
  }

  restore(): void {
    this.refusing = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private forward(client: Socket): void {
    if (this.refusing) return void client.resetAndDestroy();
    const upstream = connect(Number(this.target.port), this.target.hostname);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined); // resets are what this proxy is for
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }
}
