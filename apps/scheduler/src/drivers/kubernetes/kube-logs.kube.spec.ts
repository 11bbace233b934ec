import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { type LogLine, type LogSource, parseLogCursor } from '@runplane/contracts';
import { createKubeClients, type KubeClients } from '@runplane/kube';
import {
  createTestNamespace,
  kubeTestEnv,
  kwokContainerLogFile,
  pollUntil,
  type TestNamespace,
} from '@runplane/testing';
import type { LogFollowRequest } from '../compute-driver';
import { KubeLogFollower } from './kube-logs';

/** A TCP relay to the apiserver that counts its open connections (what a closed stream must give back). */
class CountingRelay {
  readonly sockets = new Set<Socket>();
  private constructor(readonly server: Server) {}

  static async start(host: string, port: number): Promise<CountingRelay> {
    const relay = new CountingRelay(
      createServer((client) => {
        const upstream = connect(port, host);
        relay.sockets.add(client);
        client.on('close', () => relay.sockets.delete(client));
        for (const socket of [client, upstream]) socket.on('error', () => undefined);
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      }),
    );
    await new Promise<void>((resolve) => relay.server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe('Kubernetes log streams (pods/log through kwok, Events)', () => {
  const env = kubeTestEnv();
  const logFile = kwokContainerLogFile(dirname(env.kubeconfigPath));
  const node = `logs-${randomBytes(3).toString('hex')}`;
  const pod = 'rp-logs-pod';
  const marker = randomBytes(4).toString('hex');
  let namespace: TestNamespace;
  let admin: KubeClients;
  let relay: CountingRelay;
  let viaRelay: KubeClients;
  const followers: KubeLogFollower[] = [];

  const write = (text: string): void => appendFileSync(logFile, `${new Date().toISOString()} stdout F ${text}\n`);
  const mine = (lines: LogLine[]): string[] =>
    lines.filter((l) => l.source === 'system' || l.line.includes(marker)).map((l) => `${l.source}:${l.line}`);

  function follow(clients: KubeClients, options: Partial<LogFollowRequest> = {}): LogLine[] {
    const lines: LogLine[] = [];
    const follower = new KubeLogFollower({
      clients,
      namespace: namespace.name,
      pod,
      container: 'workload',
      retryMs: 100,
      request: {
        podId: 'p',
        tail: 100,
        since: null,
        after: null,
        sources: ['container', 'system'] as LogSource[],
        onLines: (batch) => lines.push(...batch),
        onError: (error) => {
          throw error;
        },
        ...options,
      },
    });
    followers.push(follower);
    return lines;
  }

  beforeAll(async () => {
    namespace = await createTestNamespace('kube-logs');
    admin = createKubeClients({ kubeconfigPath: env.kubeconfigPath, qps: 50, burst: 50 });
    const server = new URL(env.connection.server);
    relay = await CountingRelay.start(server.hostname, Number(server.port));
    viaRelay = createKubeClients({
      kubeconfig: env.kubeconfig.split(env.connection.server).join(`https://${server.hostname}:${relay.port}`),
      qps: 50,
      burst: 50,
    });
    const resources = { cpu: '8', memory: '32Gi', pods: '20' };
    await admin.core.createNode({
      body: {
        metadata: {
          name: node,
          labels: { 'kubernetes.io/hostname': node, type: 'kwok' },
          annotations: { 'kwok.x-k8s.io/node': 'fake' },
        },
        status: { capacity: resources, allocatable: resources },
      },
    });
    write(`${marker} before the pod`);
    await admin.core.createNamespacedPod({
      namespace: namespace.name,
      body: {
        metadata: { name: pod },
        spec: {
          nodeSelector: { 'kubernetes.io/hostname': node },
          containers: [{ name: 'workload', image: 'busybox' }],
        },
      },
    });
    await pollUntil(
      async () =>
        (await admin.core.readNamespacedPod({ name: pod, namespace: namespace.name })).status?.phase === 'Running',
      { timeoutMs: 30_000, description: 'the pod running on its kwok node' },
    );
  });

  afterAll(async () => {
    for (const follower of followers) follower.close();
    await namespace?.delete();
    await admin?.core.deleteNode({ name: node }).catch(() => undefined);
    viaRelay?.close();
    admin?.close();
    await relay?.close();
  });

  it('backfills the container log and the pod Events, then follows new lines', async () => {
    const lines = follow(admin);
    await pollUntil(() => mine(lines).includes(`container:${marker} before the pod`), {
      timeoutMs: 20_000,
      description: 'the backfilled line',
    });
    await pollUntil(() => lines.some((l) => l.source === 'system' && l.line.startsWith('Scheduled: ')), {
      timeoutMs: 20_000,
      description: "kube-scheduler's Scheduled event as a system line",
    });
    write(`${marker} live`);
    await pollUntil(() => mine(lines).includes(`container:${marker} live`), { timeoutMs: 20_000 });
    expect(new Set(lines.map((l) => l.id)).size).toBe(lines.length);
    const live = lines.find((l) => l.line === `${marker} live`) as LogLine;
    expect(live.ts).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/);
  });

  it('resumes after a Last-Event-ID and honours tail 0 and the source filter', async () => {
    write(`${marker} resume-1`);
    const all = follow(admin, { sources: ['container'] });
    await pollUntil(() => mine(all).includes(`container:${marker} resume-1`), { timeoutMs: 20_000 });
    const first = all.find((l) => l.line === `${marker} before the pod`) as LogLine;
    const resumed = follow(admin, { sources: ['container'], tail: 1, after: parseLogCursor(first.id) });
    await pollUntil(() => mine(resumed).includes(`container:${marker} resume-1`), { timeoutMs: 20_000 });
    expect(mine(resumed)).not.toContain(`container:${marker} before the pod`);
    expect(mine(resumed)).toContain(`container:${marker} live`);
    const quiet = follow(admin, { tail: 0, sources: ['container'] });
    write(`${marker} after tail 0`);
    await pollUntil(() => mine(quiet).includes(`container:${marker} after tail 0`), { timeoutMs: 20_000 });
    expect(mine(quiet)).toEqual([`container:${marker} after tail 0`]);
    expect(quiet.every((l) => l.source === 'container')).toBe(true);
  });

  it('closing a stream closes its apiserver connection at once', async () => {
    const lines = follow(viaRelay, { sources: ['container'], tail: 1 });
    write(`${marker} through the relay`);
    await pollUntil(() => mine(lines).includes(`container:${marker} through the relay`), { timeoutMs: 20_000 });
    expect(relay.sockets.size).toBeGreaterThan(0);
    const follower = followers[followers.length - 1] as KubeLogFollower;
    follower.close();
    expect(follower.openUpstreams).toBe(0);
    await pollUntil(() => relay.sockets.size === 0, { description: 'the log request connection closed' });
  });
});
