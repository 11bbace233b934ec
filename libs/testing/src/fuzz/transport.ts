import { connect } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import type { FuzzRequest } from './requests';

/** An answer as the fuzz checks it: status, the request id header and the body text. */
export interface FuzzAnswer {
  status: number;
  requestIdHeader: string | undefined;
  body: string;
}

/** Undoes chunked transfer-encoding of a body read off a socket. */
function unchunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (lineEnd < 0 || !(size > 0)) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 4 + size);
  }
}

/** Parses what a server wrote on a socket it then closed. */
function parseRaw(raw: string): FuzzAnswer {
  const split = raw.indexOf('\r\n\r\n');
  const head = split < 0 ? raw : raw.slice(0, split);
  const body = split < 0 ? '' : raw.slice(split + 4);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const header = (name: string) =>
    lines
      .find((line) => line.toLowerCase().startsWith(`${name}:`))
      ?.slice(name.length + 1)
      .trim();
  const chunked = header('transfer-encoding')?.toLowerCase() === 'chunked';
  return {
    status: Number(statusLine.split(' ')[1] ?? 0),
    requestIdHeader: header('x-request-id'),
    body: chunked ? unchunk(body) : body,
  };
}

function sendRaw(origin: URL, bytes: string): Promise<FuzzAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(origin.port), origin.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' && chunks.length > 0 ? undefined : reject(error),
    );
    socket.on('close', () => resolve(parseRaw(Buffer.concat(chunks).toString('latin1'))));
    socket.write(bytes, 'latin1');
  });
}

/** Sends fuzz requests to a listening server over at most `connections` connections. */
export class FuzzTransport {
  private readonly agent: Agent;

  constructor(
    private readonly origin: URL,
    connections: number,
  ) {
    this.agent = new Agent({ connections, pipelining: 0 });
  }

  async send(fuzz: FuzzRequest): Promise<FuzzAnswer> {
    if (fuzz.kind === 'raw') return sendRaw(this.origin, fuzz.bytes);
    // The path goes as written: a URL object would resolve `..` and re-encode what the fuzz means to send.
    const answer = await this.agent.request({
      origin: this.origin.origin,
      path: fuzz.url,
      method: fuzz.method as Dispatcher.HttpMethod,
      headers: fuzz.headers,
      body: fuzz.body,
    });
    const requestIdHeader = answer.headers['x-request-id'];
    return {
      status: answer.statusCode,
      requestIdHeader: typeof requestIdHeader === 'string' ? requestIdHeader : undefined,
      body: await answer.body.text(),
    };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
