import { connect, type AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { interceptRequests } from './intercept';

/** Sends raw HTTP/1.1 and resolves with the first line of the answer. */
function statusLine(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.on('data', (chunk) => {
      text += String(chunk);
      if (text.includes('\r\n')) {
        socket.destroy();
        resolve(text.split('\r\n')[0] ?? '');
      }
    });
    socket.on('error', reject);
  });
}

describe('interceptRequests', () => {
  let fastify: FastifyInstance;
  let port: number;
  const bodiesSeen: string[] = [];

  beforeAll(async () => {
    fastify = Fastify();
    fastify.post('/route', async (request) => ({ routed: request.body }));
    interceptRequests(fastify, {
      claims: (request) => request.headers.host === 'claimed.test',
      handle: (request, response, requestId) => {
        let body = '';
        request.on('data', (chunk) => (body += String(chunk)));
        request.on('end', () => {
          bodiesSeen.push(body);
          response.writeHead(299, { 'x-id': requestId }).end();
        });
      },
      upgrade: (_request, socket) => socket.end('HTTP/1.1 101 Switching Protocols\r\n\r\n'),
    });
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    port = (fastify.server.address() as AddressInfo).port;
  });

  afterAll(() => fastify.close());

  it('hands a claimed request, its body unread, to the interceptor whatever its path', async () => {
    const request = 'POST /route HTTP/1.1\r\nHost: claimed.test\r\nContent-Length: 5\r\n\r\nhello';
    expect(await statusLine(port, request)).toBe('HTTP/1.1 299 unknown');
    expect(bodiesSeen).toEqual(['hello']);
  });

  it('leaves other requests to the routes', async () => {
    const request =
      'POST /route HTTP/1.1\r\nHost: other.test\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi';
    expect(await statusLine(port, request)).toBe('HTTP/1.1 200 OK');
  });

  it('takes over claimed upgrades and leaves other upgrade requests to the routes', async () => {
    const upgrade = (host: string) =>
      `POST /route HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi`;
    expect(await statusLine(port, upgrade('claimed.test'))).toBe('HTTP/1.1 101 Switching Protocols');
    expect(await statusLine(port, upgrade('other.test'))).toBe('HTTP/1.1 200 OK');
  });
});
