import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a test server (the test apiserver), so a test can cut live connections (a watch dies with
 * ECONNRESET) and refuse new ones (an outage) without touching the shared server. TLS passes through untouched.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  private refusing = false;
  /** Client connections forwarded so far. */
  private forwarded = 0;

  private constructor(private readonly target: URL) {
    this.server = createServer((client) => this.forward(client));
  }

  /** Listens on a free loopback port and forwards to the server at `server` (scheme://host:port). */
  static async start(server: string): Promise<TcpProxy> {
    const proxy = new TcpProxy(new URL(server));
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** The loopback port the proxy listens on. */
  get port(): number {
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP address');
    return address.port;
  }

  /** How many client connections the proxy has forwarded (a client that reuses its connections opens few). */
  get connections(): number {
    return this.forwarded;
  }

  /** `text` (a kubeconfig) with the target's origin pointed at this proxy. */
  kubeconfigVia(text: string): string {
    return text.split(this.target.origin).join(`${this.target.protocol}//${this.target.hostname}:${this.port}`);
  }

  /** An outage: every open connection is reset, as a network failure would, and new ones are refused until `restore()`. */
  cut(): void {
    this.refusing = true;
    for (const socket of this.sockets) socket.resetAndDestroy();
  }

  /** Ends the outage: new connections are forwarded again. */
  restore(): void {
    this.refusing = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private forward(client: Socket): void {
    if (this.refusing) return void client.resetAndDestroy();
    this.forwarded += 1;
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
