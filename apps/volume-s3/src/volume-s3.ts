import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createS3KeysService } from '@runplane/accounts';
import { createPrismaClient, SecretBox } from '@runplane/db';
import { type RunningEngine, S3Proxy, startEngine } from '@runplane/volume-buckets';
import { NetworkVolumesRepository } from '@runplane/workloads';
import type { VolumeS3Config } from './config';
import { VolumeDirectory } from './volume-directory';

/** A running S3 endpoint: where it listens, and how to stop it with its engine. */
export interface VolumeS3Service {
  url: string;
  region: string;
  close(): Promise<void>;
}

/** The engine on loopback; null when its binary is missing and VOLUME_S3_ENGINE_OPTIONAL allows that. */
async function engineOf(config: VolumeS3Config, region: string): Promise<RunningEngine | null> {
  if (config.VOLUME_S3_ENGINE_OPTIONAL && !existsSync(config.VOLUME_S3_ENGINE_BIN)) {
    console.warn(
      `volume-s3: no S3 engine at ${config.VOLUME_S3_ENGINE_BIN} (npm run s3:build); S3 requests answer 503`,
    );
    return null;
  }
  return startEngine({
    binary: config.VOLUME_S3_ENGINE_BIN,
    volumesDir: config.VOLUME_S3_VOLUMES_DIR,
    metadataDir: config.VOLUME_S3_METADATA_DIR,
    region,
    startTimeoutMs: 30_000,
  });
}

/** Starts the engine on loopback and the signature-checking proxy in front of it on VOLUME_S3_HOST:VOLUME_S3_PORT. */
export async function startVolumeS3(config: VolumeS3Config): Promise<VolumeS3Service> {
  const region = config.VOLUME_S3_DATA_CENTER.toLowerCase();
  const engine = await engineOf(config, region);
  const db = createPrismaClient(config.DATABASE_URL);
  const keys = createS3KeysService(db, new SecretBox(config.RUNPLANE_ENCRYPTION_KEY));
  const directory = new VolumeDirectory(keys, new NetworkVolumesRepository(db), config.VOLUME_S3_DATA_CENTER);
  const proxy = new S3Proxy({ directory, engine, volumesDir: config.VOLUME_S3_VOLUMES_DIR, region });
  const server = proxy.server();
  await new Promise<void>((resolve) => server.listen(config.VOLUME_S3_PORT, config.VOLUME_S3_HOST, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${config.VOLUME_S3_HOST}:${port}`,
    region,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await engine?.stop();
      await db.$disconnect();
    },
  };
}
