import { mkdir } from 'node:fs/promises';
import {
  createServer,
  type IncomingMessage,
  request as httpRequest,
  type Server,
  type ServerResponse,
} from 'node:http';
import path from 'node:path';
import { authenticate, authorize, reserveWrite, type S3Caller, type S3Directory, type S3Volume } from './s3-access';
import { S3Error, sendS3Error } from './s3-errors';
import { copySourceOf, parseS3Request, type S3Request } from './s3-request';
import { assertInsideVolume } from './volume-paths';
import { authorizationFor, type SigningKey } from './sigv4';
import { WriteReservations } from './volume-usage';

/** The proxy's settings: who it asks, where the engine listens, where the volumes are. */
export interface S3ProxyOptions {
  directory: S3Directory;
  /** Null when the engine binary is not built: every S3 request then answers 503. */
  engine: { host: string; port: number; key: SigningKey } | null;
  volumesDir: string;
  /** The region callers sign for: the data center id, lower-case. */
  region: string;
}

/** `GET /readyz` without a signature: the platform runner's probe (no volume is named `readyz`). */
function isReadinessProbe(req: IncomingMessage): boolean {
  return req.method === 'GET' && req.url === '/readyz' && req.headers.authorization === undefined;
}

/** Keeps only the `<Bucket>` entries of the caller's volumes, and names the caller's account as the owner. */
export function filterBucketList(xml: string, volumeIds: ReadonlySet<string>, accountId: string): string {
  return xml
    .replace(/<Bucket>[\s\S]*?<\/Bucket>/g, (entry) => {
      const name = /<Name>([^<]*)<\/Name>/.exec(entry)?.[1] ?? '';
      return volumeIds.has(name) ? entry : '';
    })
    .replace(/<Owner>[\s\S]*?<\/Owner>/, `<Owner><ID>${accountId}</ID><DisplayName>${accountId}</DisplayName></Owner>`);
}

/**
 * Runplane's S3 endpoint for one data center: checks each request's SigV4 signature against the caller's S3 key,
 * lets it reach only the caller's network volumes (buckets named by volume id) within their sizes, then re-signs it
 * with the engine's root key and streams it to the engine and its answer back.
 */
export class S3Proxy {
  private readonly reservations = new WriteReservations();

  constructor(private readonly options: S3ProxyOptions) {}

  /** An HTTP server answering S3 requests; listen on it where callers reach the data center's endpoint. */
  server(): Server {
    return createServer((req, res) => void this.handle(req, res));
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (isReadinessProbe(req)) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok' }));
      return;
    }
    try {
      const request = parseS3Request(req);
      const caller = await authenticate(request, this.options.directory, this.options.region);
      const volumes = await this.options.directory.volumes(caller.accountId);
      const volume = authorize(request, volumes);
      await this.ensureDirectories(volume ? [volume] : volumes);
      await this.assertPathsInside(request);
      const release = volume
        ? await reserveWrite(request, volume, { volumesDir: this.options.volumesDir, reservations: this.reservations })
        : () => undefined;
      res.once('close', release);
      const list = volume ? null : { ids: new Set(volumes.map((v) => v.id)), accountId: caller.accountId };
      await this.forward({ req, res, caller }, list);
    } catch (error) {
      const s3 = error instanceof S3Error ? error : new S3Error(500, 'InternalError', 'The S3 endpoint failed');
      if (!(error instanceof S3Error)) console.error(error);
      req.resume();
      if (!res.headersSent) sendS3Error(res, s3, (req.url ?? '/').split('?')[0] ?? '/');
      else res.destroy();
    }
  }

  /** Buckets are the volumes' directories: a volume nothing wrote to yet still lists and accepts writes. */
  private async ensureDirectories(volumes: readonly S3Volume[]): Promise<void> {
    await Promise.all(volumes.map((v) => mkdir(path.join(this.options.volumesDir, v.id), { recursive: true })));
  }

  /** The object, copy source and listing prefix a request names stay inside their volumes. */
  private async assertPathsInside(request: S3Request): Promise<void> {
    const { volumesDir } = this.options;
    if (request.bucket === null) return;
    const prefix = request.query['prefix'];
    const named = [request.key ?? '', typeof prefix === 'string' ? prefix : ''];
    for (const relative of named) await assertInsideVolume(volumesDir, request.bucket, relative);
    const source = copySourceOf(request);
    if (source) await assertInsideVolume(volumesDir, source.bucket, source.key);
  }

  private async forward(
    exchange: { req: IncomingMessage; res: ServerResponse; caller: S3Caller },
    list: { ids: ReadonlySet<string>; accountId: string } | null,
  ): Promise<void> {
    const { req, res, caller } = exchange;
    const { engine } = this.options;
    if (!engine) throw new S3Error(503, 'ServiceUnavailable', 'The S3 engine is not built here (npm run s3:build)');
    const { request, signedHeaders, date } = caller.upstream;
    const headers: Record<string, string> = { ...request.headers };
    if (!signedHeaders.includes('expect')) delete headers['expect'];
    headers['authorization'] = await authorizationFor(request, signedHeaders, engine.key, date);
    const upstream = httpRequest({
      host: engine.host,
      port: engine.port,
      method: request.method,
      path: request.target,
      headers,
    });
    await new Promise<void>((resolve, reject) => {
      upstream.once('error', reject);
      upstream.once('response', (answer) => {
        if (list && answer.statusCode === 200) this.answerBucketList(answer, res, list).then(resolve, reject);
        else {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          answer.once('end', resolve);
          answer.once('error', reject);
        }
      });
      req.pipe(upstream);
    });
  }

  private async answerBucketList(
    answer: IncomingMessage,
    res: ServerResponse,
    list: { ids: ReadonlySet<string>; accountId: string },
  ): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of answer) chunks.push(chunk as Buffer);
    const body = filterBucketList(Buffer.concat(chunks).toString('utf8'), list.ids, list.accountId);
    const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(body)) };
    delete headers['transfer-encoding'];
    res.writeHead(200, headers);
    res.end(body);
  }
}
