// A network volume through S3 and through a Pod (local driver): the data center's S3 endpoint (apps/volume-s3) and
// the scheduler's local driver share one directory per volume.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListBucketsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getFreePort, pollUntil, type ProcessGroup, stopProcessGroup } from '@runplane/testing';
import { ProcessRecords } from '../src/drivers/local/process-records';
import { startApp, waitForPort } from './app-process';
import { type PlatformHarness, startPlatform } from './harness';

const READER = [
  "const fs = require('node:fs');",
  'const dir = process.env.RUNPLANE_VOLUME_PATH;',
  "console.log('read: ' + fs.readFileSync(dir + '/inbox/greeting.txt', 'utf8'));",
  "fs.mkdirSync(dir + '/outbox', { recursive: true });",
  "fs.writeFileSync(dir + '/outbox/answer.txt', 'hello from the Pod');",
  'setInterval(() => {}, 1000);',
].join('\n');

describe('a network volume written over S3 is the volume a Pod sees (local driver)', () => {
  let p: PlatformHarness;
  let s3Process: ProcessGroup;
  let s3Url: string;
  const root = mkdtempSync(path.join(os.tmpdir(), 'runplane-volume-s3-pod-'));
  const encryptionKey = randomBytes(32).toString('hex');

  beforeAll(async () => {
    const volumesDir = path.join(root, 'volumes');
    p = await startPlatform('sched-volume-s3', {
      scheduler: { SCHEDULER_VOLUMES_DIR: volumesDir, RUNPLANE_ENCRYPTION_KEY: encryptionKey },
    });
    const port = await getFreePort();
    s3Url = `http://127.0.0.1:${port}`;
    s3Process = startApp('volume-s3', {
      DATABASE_URL: p.config.DATABASE_URL,
      RUNPLANE_ENCRYPTION_KEY: encryptionKey,
      VOLUME_S3_DATA_CENTER: 'EU-RO-1',
      VOLUME_S3_VOLUMES_DIR: volumesDir,
      VOLUME_S3_METADATA_DIR: path.join(root, 'metadata'),
      VOLUME_S3_PORT: String(port),
    });
    await waitForPort(s3Process, port, 'volume-s3');
  }, 180_000);

  afterAll(async () => {
    if (s3Process) await stopProcessGroup(s3Process, 5_000);
    await p?.close();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it('a Pod on the volume reads the file uploaded over S3, and S3 reads the file the Pod wrote', async () => {
    const volume = await p.v1('POST', '/networkvolumes', { name: 'data', size: 10, dataCenterId: 'EU-RO-1' });
    expect(volume.status).toBe(200);
    const volumeId = (volume.body as { id: string }).id;
    const key = await p.v1('POST', '/s3keys', { name: 'uploads' });
    expect(key.status).toBe(201);
    const credentials = key.body as { accessKeyId: string; secretAccessKey: string };
    const client = new S3Client({ endpoint: s3Url, region: 'eu-ro-1', forcePathStyle: true, credentials });
    await client.send(new PutObjectCommand({ Bucket: volumeId, Key: 'inbox/greeting.txt', Body: 'hi from S3' }));

    const pod = await p.v1('POST', '/pods', {
      name: 'volume-reader',
      imageName: 'runplane/reader:1',
      gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
      gpuCount: 1,
      networkVolumeId: volumeId,
      dockerEntrypoint: ['node'],
      dockerStartCmd: ['-e', READER],
    });
    expect(pod.status).toBe(201);
    const podId = (pod.body as { id: string }).id;
    const log = new ProcessRecords(p.stateDir).logFile(podId);
    await pollUntil(() => (existsSync(log) && readFileSync(log, 'utf8').includes('read: hi from S3')) || undefined, {
      timeoutMs: 30_000,
      description: 'the Pod to print the file it read from its volume',
    });
    const answer = await pollUntil(
      async () =>
        client
          .send(new GetObjectCommand({ Bucket: volumeId, Key: 'outbox/answer.txt' }))
          .then((object) => object.Body?.transformToString())
          .catch(() => undefined),
      { timeoutMs: 10_000, description: "the Pod's file over S3" },
    );
    expect(answer).toBe('hello from the Pod');
  });

  it('refuses a key revoked through v2 from its next request on', async () => {
    const created = await fetch(`${p.gatewayUrl}/v2/account/s3-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'short-lived' }),
    });
    expect(created.status).toBe(201);
    const key = (await created.json()) as { id: string; accessKeyId: string; secretAccessKey: string };
    const client = new S3Client({ endpoint: s3Url, region: 'eu-ro-1', forcePathStyle: true, credentials: key });
    expect((await client.send(new ListBucketsCommand({}))).Buckets?.length).toBeGreaterThan(0);
    const revoked = await fetch(`${p.gatewayUrl}/v2/account/s3-keys/${key.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${p.secret}` },
    });
    expect(revoked.status).toBe(204);
    await expect(client.send(new ListBucketsCommand({}))).rejects.toMatchObject({ name: 'InvalidAccessKeyId' });
  });
});
