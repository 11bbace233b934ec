import { createServer } from 'node:net';
import type { LoadBalancerPorts } from '../compute-driver';

/** A port free on 127.0.0.1 right now: the kernel picks one for a listener that is closed at once. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no free loopback port'))));
    });
  });
}

/**
 * Local ports for a load-balancing worker: processes share this host's network, so the worker's own ports (80 by
 * default) would clash between workers and need privileges. It gets free loopback ports instead, one when its server
 * and health server share a port, two when they do not.
 */
export async function allocateLoopbackPorts(wanted: LoadBalancerPorts): Promise<LoadBalancerPorts> {
  const port = await freeLoopbackPort();
  if (wanted.healthPort === wanted.port) return { port, healthPort: port };
  let healthPort = await freeLoopbackPort();
  // The kernel may hand the same port out again once the first probe closed.
  while (healthPort === port) healthPort = await freeLoopbackPort();
  return { port, healthPort };
}

/** "127.0.0.1:<port>" of a worker's servers. */
export function loopbackAddress(port: number): string {
  return `127.0.0.1:${port}`;
}
