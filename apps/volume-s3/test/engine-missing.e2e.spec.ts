import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { createAccountsServices, createS3KeysService } from '@runplane/accounts';
import { createPrismaClient, SecretBox } from '@runplane/db';
import { createTestDatabase, type TestDatabase } from '@runplane/testing';
import { volumeS3EnvSchema } from '../src/config';
import { startVolumeS3 } from '../src/volume-s3';

describe('the S3 endpoint without a built engine', () => {
  let database: TestDatabase;
  const root = mkdtempSync(path.join(os.tmpdir(), 'runplane-volume-s3-missing-'));
  const key = randomBytes(32);
  const env = (optional: boolean) =>
    volumeS3EnvSchema.parse({
      DATABASE_URL: database.url,
      RUNPLANE_ENCRYPTION_KEY: key.toString('hex'),
      VOLUME_S3_VOLUMES_DIR: path.join(root, 'volumes'),
      VOLUME_S3_METADATA_DIR: path.join(root, 'metadata'),
      VOLUME_S3_ENGINE_BIN: path.join(root, 'no-such-versitygw'),
      VOLUME_S3_ENGINE_OPTIONAL: String(optional),
      VOLUME_S3_PORT: '0',
    });

  beforeAll(async () => {
    database = await createTestDatabase('volume-s3-missing');
  });
  afterAll(async () => {
    await database.drop();
    rmSync(root, { recursive: true, force: true });
  });

  it('refuses to start, naming the build command', async () => {
    await expect(startVolumeS3(env(false))).rejects.toThrow('npm run s3:build');
  });

  it('when optional (npm start), is ready and answers signed S3 requests 503 ServiceUnavailable', async () => {
    const service = await startVolumeS3(env(true));
    const db = createPrismaClient(database.url);
    try {
      expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
      const account = await createAccountsServices(db).accounts.create({ name: 'no-engine' });
      const created = await createS3KeysService(db, new SecretBox(key)).create(account.id, { name: 'k' });
      const credentials = { accessKeyId: created.key.accessKeyId, secretAccessKey: created.secretAccessKey };
      const client = new S3Client({
        endpoint: service.url,
        region: service.region,
        forcePathStyle: true,
        credentials,
        maxAttempts: 1,
      });
      await expect(client.send(new ListBucketsCommand({}))).rejects.toMatchObject({
        name: 'ServiceUnavailable',
        $metadata: { httpStatusCode: 503 },
      });
    } finally {
      await service.close();
      await db.$disconnect();
    }
  });
});
