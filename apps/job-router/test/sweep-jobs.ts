import { bearer, type JobRouterHarness, raw } from './harness';

const WORKER = 'w-sweep';

/** Jobs in each state a job-API route acts on, made on one endpoint by its owner (whose ALL key also acts as worker). */
export class SweepJobs {
  constructor(
    private readonly h: JobRouterHarness,
    private readonly owner: string,
    readonly endpointId: string,
  ) {}

  async queued(): Promise<string> {
    const res = await this.h.inject({
      method: 'POST',
      url: `/v2/${this.endpointId}/run`,
      headers: bearer(this.owner),
      payload: { input: { n: 1 } },
    });
    if (res.statusCode !== 200) throw new Error(`run: ${res.statusCode} ${res.body}`);
    return (res.json() as { id: string }).id;
  }

  async running(): Promise<string> {
    const id = await this.queued();
    const taken = await this.worker('GET', `job-take/${WORKER}?job_in_progress=0`);
    if ((taken.json() as { id?: string }).id !== id) throw new Error(`job-take: ${taken.statusCode} ${taken.body}`);
    return id;
  }

  /** A running job with one stream chunk not handed out yet. */
  async streaming(): Promise<string> {
    const id = await this.running();
    await this.worker('POST', `job-stream/${WORKER}/${id}`, { output: 'chunk' });
    return id;
  }

  async completed(): Promise<string> {
    const id = await this.running();
    await this.worker('POST', `job-done/${WORKER}/${id}?isStream=false`, { output: { ok: true } });
    return id;
  }

  async failed(): Promise<string> {
    const id = await this.running();
    await this.worker('POST', `job-done/${WORKER}/${id}?isStream=false`, { error: 'boom' });
    return id;
  }

  /**
   * Answers the endpoint's jobs as a worker (each with an OpenAI-style empty list) until `request` settles, for
   * routes that wait for their job to finish; resolves once the worker's last take is over too.
   */
  async serveWhile<T>(request: Promise<T>): Promise<T> {
    let settled = false;
    const done = request.finally(() => {
      settled = true;
    });
    const serving = (async () => {
      while (!settled) {
        const taken = await this.worker('GET', `job-take/${WORKER}?job_in_progress=0`, undefined, true);
        if (taken.statusCode !== 200) continue;
        const { id } = taken.json() as { id: string };
        await this.worker('POST', `job-done/${WORKER}/${id}?isStream=false`, { output: { object: 'list', data: [] } });
      }
    })();
    const [answer] = await Promise.all([done, serving]);
    return answer;
  }

  private async worker(method: 'GET' | 'POST', path: string, payload?: object, emptyIsFine = false) {
    const res = await this.h.inject({
      method,
      url: `/v2/${this.endpointId}/${path}`,
      headers: raw(this.owner),
      ...(payload ? { payload } : {}),
    });
    if (res.statusCode !== 200 && !(emptyIsFine && res.statusCode === 204))
      throw new Error(`${path}: ${res.statusCode} ${res.body}`);
    return res;
  }
}
