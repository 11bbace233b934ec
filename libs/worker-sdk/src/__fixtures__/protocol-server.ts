import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the fake platform received it. */
export interface RecordedRequest {
  method: string;
  route: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

interface Parked {
  res: ServerResponse;
  count: number;
  batch: boolean;
  timer: NodeJS.Timeout;
}

/**
 * A small real HTTP server speaking the platform side of the worker protocol for SDK tests: it records every
 * request, parks job-take and job-stop long-polls until a job or stop request arrives (or `holdMs` passes),
 * and answers job-done / job-stream with scripted statuses.
 */
export class FakePlatform {
  readonly requests: RecordedRequest[] = [];
  /** Statuses answered to the next job-done posts, in order (then 200). */
  readonly doneStatuses: number[] = [];
  /** Statuses answered to the next job-take requests, in order (then the normal behaviour). */
  readonly takeStatuses: number[] = [];
  private readonly jobs: object[] = [];
  private readonly parkedTakes: Parked[] = [];
  private readonly parkedStops: ServerResponse[] = [];
  private readonly pendingStops: string[] = [];
  private server!: Server;
  url = '';

  constructor(private readonly holdMs = 2000) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const parked of this.parkedTakes.splice(0)) {
      clearTimeout(parked.timer);
      parked.res.writeHead(204).end();
    }
    for (const res of this.parkedStops.splice(0)) res.writeHead(204).end();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Queues jobs; a parked take is answered at once. */
  push(...jobs: object[]): void {
    this.jobs.push(...jobs);
    this.serveParkedTakes();
  }

  /** Asks the worker to stop these jobs through its job-stop long-poll. */
  stop(...jobIds: string[]): void {
    this.pendingStops.push(...jobIds);
    const res = this.parkedStops.shift();
    if (res) this.answerStops(res);
  }

  /** Requests to one route (`job-take`, `job-done`, ...). */
  on(route: string): RecordedRequest[] {
    return this.requests.filter((request) => request.route === route);
  }

  /** Number of takes currently parked. */
  get parked(): number {
    return this.parkedTakes.length;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', this.url);
    const route = url.pathname.split('/')[3] ?? '';
    const body = Buffer.concat(chunks).toString('utf8');
    this.requests.push({
      method: req.method ?? '',
      route,
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      at: Date.now(),
    });
    if (route === 'job-take' || route === 'job-take-batch')
      return this.take(res, route === 'job-take-batch', url.searchParams);
    if (route === 'job-stop') return this.stopPoll(res);
    if (route === 'job-done') return void res.writeHead(this.doneStatuses.shift() ?? 200).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  }

  private take(res: ServerResponse, batch: boolean, query: URLSearchParams): void {
    const scripted = this.takeStatuses.shift();
    if (scripted !== undefined) return void res.writeHead(scripted).end();
    const count = batch ? Number(query.get('batch_size') ?? 1) : 1;
    const timer = setTimeout(() => {
      const index = this.parkedTakes.findIndex((parked) => parked.res === res);
      if (index >= 0) this.parkedTakes.splice(index, 1);
      res.writeHead(204).end();
    }, this.holdMs);
    this.parkedTakes.push({ res, count, batch, timer });
    this.serveParkedTakes();
  }

  private serveParkedTakes(): void {
    while (this.jobs.length > 0 && this.parkedTakes.length > 0) {
      const parked = this.parkedTakes.shift() as Parked;
      clearTimeout(parked.timer);
      const jobs = this.jobs.splice(0, parked.count);
      const body = JSON.stringify(parked.batch ? jobs : jobs[0]);
      parked.res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    }
  }

  private stopPoll(res: ServerResponse): void {
    if (this.pendingStops.length > 0) return this.answerStops(res);
    this.parkedStops.push(res);
    setTimeout(() => {
      const index = this.parkedStops.indexOf(res);
      if (index < 0) return;
      this.parkedStops.splice(index, 1);
      res.writeHead(204).end();
    }, this.holdMs).unref();
  }

  private answerStops(res: ServerResponse): void {
    const jobsToStop = this.pendingStops.splice(0);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jobsToStop }));
  }
}
