import { connect, type Socket } from 'node:net';

/** An HTTP answer read off a raw socket: status, headers by lower-case name and the JSON body. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/**
 * Connects to 127.0.0.1:`port` and writes `head` as it is: for what an HTTP client will not send (an over-long
 * request line, broken syntax, a body that never completes).
 */
export function sendRaw(port: number, head: string): Socket {
  const socket = connect(port, '127.0.0.1');
  socket.write(head);
  return socket;
}

function headerEntry(line: string): [string, string] {
  const colon = line.indexOf(':');
  return colon < 0 ? [line.toLowerCase(), ''] : [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
}

/** Everything the server writes on a socket until it closes it, read as one HTTP answer with a JSON body. */
export function answerOf(socket: Socket): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString();
      const [head = '', body = ''] = raw.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map(headerEntry));
      try {
        resolve({
          status: Number(statusLine.split(' ')[1]),
          headers,
          body: JSON.parse(body) as Record<string, unknown>,
        });
      } catch {
        reject(new Error(`no JSON answer before the connection closed: ${JSON.stringify(raw.slice(0, 300))}`));
      }
    });
  });
}

/**
 * Writes `byte` on a socket whose request declared a body, one every 20 ms (a megabyte would take almost six hours),
 * until the server answers and closes the connection. Resolves with the answer and how many bytes were written; the
 * socket is destroyed either way.
 */
export async function trickleUntilAnswered(socket: Socket, byte: string): Promise<{ answer: RawAnswer; sent: number }> {
  let sent = 0;
  const trickle = setInterval(() => {
    if (socket.writable) socket.write(byte, () => (sent += 1));
  }, 20);
  try {
    const answer = await answerOf(socket);
    return { answer, sent };
  } finally {
    clearInterval(trickle);
    socket.destroy();
  }
}
