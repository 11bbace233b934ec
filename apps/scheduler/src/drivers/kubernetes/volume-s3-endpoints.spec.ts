// The retries of a data center's S3 endpoint objects: a local HTTP server stands in for the apiserver, refusing
// the applies it is told to, and a fake clock moves time through the backoff.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKubeClients, type KubeClients } from '@runplane/kube';
import { FakeClock } from '@runplane/testing';
import { VolumeS3Endpoints, volumeS3RetryDelayMs } from './volume-s3-endpoints';

const SETTINGS = {
  namespace: 'runplane',
  image: 'registry.example/runplane:1',
  storageGb: 10,
  databaseSecret: 'db',
  encryptionKeySecret: 'key',
};

/** The discovery documents the client reads to find each kind's resource. */
const DISCOVERY: Record<string, { name: string; kind: string }[]> = {
  '/api/v1': [
    { name: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim' },
    { name: 'services', kind: 'Service' },
  ],
  '/apis/apps/v1': [{ name: 'deployments', kind: 'Deployment' }],
};

/**
 * An apiserver that serves discovery, answers 503 to every server-side apply while `refusing` is on, else echoes the
 * applied object back; `applies` lists the applies asked for.
 */
class FakeApiserver {
  refusing = true;
  readonly applies: string[] = [];
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const path = req.url?.split('?')[0] ?? '';
        res.setHeader('content-type', 'application/json');
        const resources = DISCOVERY[path];
        if (req.method === 'GET' && resources) {
          res.end(
            JSON.stringify({ kind: 'APIResourceList', resources: resources.map((r) => ({ ...r, namespaced: true })) }),
          );
          return;
        }
        this.applies.push(`${req.method} ${path}`);
        if (this.refusing) {
          res.statusCode = 503;
          res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 503, message: 'down' }));
        } else res.end(body);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

function kubeconfigFor(server: string): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'fake', cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'fake', user: { token: 't' } }],
    contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'fake' } }],
    'current-context': 'fake',
  });
}

describe('volumeS3RetryDelayMs', () => {
  it('starts at 250 ms and doubles per failure in a row, capped at 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 20].map(volumeS3RetryDelayMs)).toEqual([
      250, 500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });
});

describe('VolumeS3Endpoints', () => {
  const apiserver = new FakeApiserver();
  let clients: KubeClients;

  beforeAll(async () => {
    clients = createKubeClients({ kubeconfig: kubeconfigFor(await apiserver.start()), qps: 1000, burst: 1000 });
  });

  afterAll(async () => {
    clients?.close();
    await apiserver.close();
  });

  it('retries a failed apply only once its backoff has passed, logs each failure once, and resets on success', async () => {
    const clock = new FakeClock();
    const logged: string[] = [];
    const endpoints = new VolumeS3Endpoints(clients, SETTINGS, (message) => logged.push(message), clock);

    await endpoints.ensure(['EU-RO-1']);
    expect(apiserver.applies).toEqual([
      'PATCH /api/v1/namespaces/runplane/persistentvolumeclaims/runplane-volumes-eu-ro-1',
    ]);
    expect(logged).toEqual(['Could not apply the S3 endpoint of EU-RO-1 (1 in a row; next try in 250 ms)']);

    // Calls inside the backoff neither apply nor log.
    clock.advance(249);
    await endpoints.ensure(['EU-RO-1', null]);
    expect(apiserver.applies).toHaveLength(1);
    expect(logged).toHaveLength(1);

    clock.advance(1);
    await endpoints.ensure(['EU-RO-1']);
    expect(apiserver.applies).toHaveLength(2);
    expect(logged.at(-1)).toBe('Could not apply the S3 endpoint of EU-RO-1 (2 in a row; next try in 500 ms)');

    clock.advance(499);
    await endpoints.ensure(['EU-RO-1']);
    expect(apiserver.applies).toHaveLength(2);

    apiserver.refusing = false;
    clock.advance(1);
    await endpoints.ensure(['EU-RO-1']);
    expect(apiserver.applies.slice(2)).toEqual([
      'PATCH /api/v1/namespaces/runplane/persistentvolumeclaims/runplane-volumes-eu-ro-1',
      'PATCH /apis/apps/v1/namespaces/runplane/deployments/runplane-volume-s3-eu-ro-1',
      'PATCH /api/v1/namespaces/runplane/services/runplane-volume-s3-eu-ro-1',
    ]);
    expect(logged).toHaveLength(2);

    // Applied: later calls apply nothing more.
    await endpoints.ensure(['EU-RO-1']);
    expect(apiserver.applies).toHaveLength(5);
  });

  it('counts the failures in a row of each data center apart', async () => {
    const clock = new FakeClock();
    const logged: string[] = [];
    apiserver.refusing = true;
    const endpoints = new VolumeS3Endpoints(clients, SETTINGS, (message) => logged.push(message), clock);
    await endpoints.ensure(['EU-FR-1']);
    clock.advance(250);
    await endpoints.ensure(['EU-FR-1']);
    expect(logged).toEqual([
      'Could not apply the S3 endpoint of EU-FR-1 (1 in a row; next try in 250 ms)',
      'Could not apply the S3 endpoint of EU-FR-1 (2 in a row; next try in 500 ms)',
    ]);
    clock.advance(500);
    // EU-FR-1 still refused; EU-NL-1, seen for the first time, has its own count.
    await endpoints.ensure(['EU-FR-1', 'EU-NL-1']);
    expect(logged.slice(2)).toEqual([
      'Could not apply the S3 endpoint of EU-FR-1 (3 in a row; next try in 1000 ms)',
      'Could not apply the S3 endpoint of EU-NL-1 (1 in a row; next try in 250 ms)',
    ]);
    apiserver.refusing = false;
    clock.advance(1000);
    await endpoints.ensure(['EU-FR-1', 'EU-NL-1']);
    expect(logged).toHaveLength(4);
  });
});
