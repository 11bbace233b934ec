import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  createTestNamespace,
  kubeTestEnv,
  kwokContainerLogFile,
  NODE_POOL_LABEL,
  pollUntil,
  registerNodePools,
  removeNodePool,
  type TestNamespace,
} from '@runplane/testing';
import { type LogPlatform, startLogPlatform } from './v2-logs-platform';

const POOL = 'gw-v2-logs';
const H100 = 'NVIDIA H100 80GB HBM3';

interface SseEvent {
  id: string;
  data: { source: string; line: string };
}

/** Reads SSE events from a response body until `done` holds, then closes it. */
async function readEvents(response: Response, done: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = '';
  try {
    while (!done(events)) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const id = /^id: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (id && data) events.push({ id, data: JSON.parse(data) as SseEvent['data'] });
      }
    }
  } finally {
    await reader.cancel();
  }
  return events;
}

describe('v2 log streams of a Pod on the Kubernetes driver (kwok serves the container log)', () => {
  const env = kubeTestEnv();
  const logFile = kwokContainerLogFile(dirname(env.kubeconfigPath));
  const marker = randomBytes(4).toString('hex');
  let ns: TestNamespace;
  let p: LogPlatform;
  let owner: { secret: string };
  let podId: string;

  const write = (text: string): void => appendFileSync(logFile, `${new Date().toISOString()} stdout F ${text}\n`);
  const logs = (query: string, headers: Record<string, string> = {}, secret = owner.secret, id = podId) =>
    fetch(`${p.gatewayUrl}/v2/pods/${id}/logs?${query}`, {
      headers: { authorization: `Bearer ${secret}`, ...headers },
    });
  const mine = (events: SseEvent[]): string[] =>
    events.filter((e) => e.data.line.includes(marker)).map((e) => e.data.line.replace(`${marker} `, ''));

  beforeAll(async () => {
    ns = await createTestNamespace('gw-v2-logs', env);
    await registerNodePools(
      env,
      [
        {
          name: 'h100',
          dataCenterId: 'EU-RO-1',
          count: 1,
          cpu: '64',
          memory: '512Gi',
          gpu: { type: H100, count: 2, memoryMiB: 81559 },
        },
      ],
      { poolLabel: POOL },
    );
    p = await startLogPlatform('v2-logs-kube', {
      SCHEDULER_DRIVER: 'kubernetes',
      KUBECONFIG: env.kubeconfigPath,
      KUBE_NAMESPACE: ns.name,
      KUBE_NODE_SELECTOR: `${NODE_POOL_LABEL}=${POOL}`,
      KUBE_REQUEST_CONTAINER_DISK: 'false',
      KUBE_LEADER_LEASE: `lease-${marker}`,
      RUNPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    });
    owner = await p.tenant('owner');
    await pollUntil(async () => (await p.db.machine.count({ where: { ready: true } })) === 1, {
      timeoutMs: 60_000,
      description: 'the node mirrored',
    });
    const created = await fetch(`${p.gatewayUrl}/v1/pods`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'kube-logs', imageName: 'runpod/base:0.6.2', gpuTypeIds: [H100], volumeInGb: 0 }),
    });
    podId = ((await created.json()) as { id: string }).id;
    await pollUntil(async () => (await p.db.pod.findUnique({ where: { id: podId } }))?.observedPhase === 'RUNNING', {
      timeoutMs: 60_000,
      description: "the Pod's kube pod running",
    });
  }, 240_000);

  afterAll(async () => {
    await p?.close();
    await ns?.delete();
    await removeNodePool(env, POOL);
  }, 120_000);

  it('streams the container log with tail, the pod Events as system lines, and follows new lines', async () => {
    write(`${marker} one`);
    write(`${marker} two`);
    const response = await logs('tail=1000');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    let wrote = false;
    const events = await readEvents(response, (seen) => {
      if (!wrote && mine(seen).includes('two')) {
        wrote = true;
        write(`${marker} three`);
      }
      return mine(seen).includes('three') && seen.some((e) => e.data.line.startsWith('Scheduled: '));
    });
    expect(mine(events)).toEqual(['one', 'two', 'three']);
    const scheduled = events.find((e) => e.data.line.startsWith('Scheduled: '));
    expect(scheduled?.data).toMatchObject({ source: 'system', line: expect.stringContaining(`rp-${podId}`) });
  });

  it('resumes after Last-Event-ID and filters by source', async () => {
    const first = await readEvents(await logs('tail=1000&source=container'), (seen) => mine(seen).includes('three'));
    const one = first.find((e) => e.data.line === `${marker} one`) as SseEvent;
    write(`${marker} four`);
    const resumed = await readEvents(await logs('tail=1&source=container', { 'last-event-id': one.id }), (seen) =>
      mine(seen).includes('four'),
    );
    expect(mine(resumed)).toEqual(['two', 'three', 'four']);
    expect(resumed.every((e) => e.data.source === 'container')).toBe(true);
    const system = await readEvents(await logs('source=system'), (seen) => seen.length > 0);
    expect(system.map((e) => e.data.source)).toEqual(['system']);
  });

  it("another tenant's key gets a 404 problem", async () => {
    const other = await p.tenant('other');
    const response = await logs('', {}, other.secret);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});
