import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { createAccountsServices, createS3KeysService } from '@runplane/accounts';
import { seedCatalog } from '@runplane/catalog';
import { createPrismaClient, newId, SecretBox } from '@runplane/db';
import { createTestDatabase } from '@runplane/testing';
import { NetworkVolumesRepository } from '@runplane/workloads';
import { type VolumeS3Config, volumeS3EnvSchema } from '../src/config';
import { startVolumeS3, type VolumeS3Service } from '../src/volume-s3';

/** An S3 endpoint for EU-RO-1 on its own database and directories, with helpers to make accounts, keys and volumes. */
export interface S3Fixture {
  service: VolumeS3Service;
  volumesDir: string;
  db: ReturnType<typeof createPrismaClient>;
  account(): Promise<string>;
  key(accountId: string): Promise<{ id: string; accessKeyId: string; secretAccessKey: string }>;
  volume(accountId: string, options?: { sizeGb?: number; dataCenterId?: string }): Promise<string>;
  client(credentials: { accessKeyId: string; secretAccessKey: string }): S3Client;
  close(): Promise<void>;
}

/** The AWS SDK's client for the endpoint: path-style addressing, the data center as region, no retries. */
export function s3Client(
  service: VolumeS3Service,
  credentials: { accessKeyId: string; secretAccessKey: string },
): S3Client {
  return new S3Client({
    endpoint: service.url,
    region: service.region,
    forcePathStyle: true,
    credentials,
    maxAttempts: 1,
  });
}

function fixtureConfig(databaseUrl: string, encryptionKey: Buffer, root: string): VolumeS3Config {
  return volumeS3EnvSchema.parse({
    DATABASE_URL: databaseUrl,
    RUNPLANE_ENCRYPTION_KEY: encryptionKey.toString('hex'),
    VOLUME_S3_DATA_CENTER: 'EU-RO-1',
    VOLUME_S3_VOLUMES_DIR: path.join(root, 'volumes'),
    VOLUME_S3_METADATA_DIR: path.join(root, 'metadata'),
    VOLUME_S3_PORT: '0',
  });
}

async function createVolume(
  volumes: NetworkVolumesRepository,
  accountId: string,
  options: { sizeGb?: number; dataCenterId?: string },
): Promise<string> {
  const id = newId();
  const dataCenterId = options.dataCenterId ?? 'EU-RO-1';
  await volumes.create({ id, accountId, name: 'data', size: options.sizeGb ?? 1, dataCenterId });
  return id;
}

/** Starts the S3 endpoint of one test file (the engine binary comes from `npm run s3:build`). */
export async function startS3Fixture(label: string): Promise<S3Fixture> {
  const database = await createTestDatabase(label);
  const db = createPrismaClient(database.url);
  await seedCatalog(db);
  const root = mkdtempSync(path.join(os.tmpdir(), `runplane-${label}-`));
  const encryptionKey = randomBytes(32);
  const config = fixtureConfig(database.url, encryptionKey, root);
  const service = await startVolumeS3(config);
  const { accounts } = createAccountsServices(db);
  const keys = createS3KeysService(db, new SecretBox(encryptionKey));
  const volumes = new NetworkVolumesRepository(db);
  return {
    service,
    volumesDir: config.VOLUME_S3_VOLUMES_DIR,
    db,
    account: async () => (await accounts.create({ name: label })).id,
    async key(accountId) {
      const { key, secretAccessKey } = await keys.create(accountId, { name: 'test' });
      return { id: key.id, accessKeyId: key.accessKeyId, secretAccessKey };
    },
    volume: (accountId, options = {}) => createVolume(volumes, accountId, options),
    client: (credentials) =>
      new S3Client({
        endpoint: service.url,
        region: service.region,
        forcePathStyle: true,
        credentials,
        maxAttempts: 1,
      }),
    async close() {
      await service.close();
      await db.$disconnect();
      await database.drop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
