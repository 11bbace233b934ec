import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of the test apiserver, so a test can cut live connections (a watch dies with ECONNRESET)
 * and refuse new ones (an outage) without touching the shared control plane. TLS passes through untouched.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  private refusing = false;
  private listeningPort = 0;

  private constructor(private readonly target: { host: string; port: number }) {
    this.server = createServer((client) => this.forward(client));
  }

  /** Start a proxy on a free loopback port forwarding to `target` (host:port). */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    const address = proxy.server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy has no TCP address');
    proxy.listeningPort = address.port;
    return proxy;
  }

  get port(): number {
    return this.listeningPort;
  }

  /** Reset every open connection, as a network failure would. */
  cutAll(): void {
    for (const socket of this.sockets) socket.resetAndDestroy();
  }

  /** While true, new connections are reset at once. */
  refuse(refusing: boolean): void {
    this.refusing = refusing;
  }

  async close(): Promise<void> {
    this.cutAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private forward(client: Socket): void {
    if (this.refusing) return void client.resetAndDestroy();
    const upstream = connect(this.target.port, this.target.host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined); // resets are the point of this proxy
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }
}

/** The kubeconfig text with its server pointed at `port` on the same host instead. */
export function kubeconfigVia(kubeconfig: string, server: string, port: number): string {
  const url = new URL(server);
  return kubeconfig.split(server).join(`${url.protocol}//${url.hostname}:${port}`);
}
