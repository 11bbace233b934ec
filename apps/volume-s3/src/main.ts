import { loadVolumeS3Config } from './config';
import { startVolumeS3 } from './volume-s3';

async function main(): Promise<void> {
  const config = loadVolumeS3Config();
  const service = await startVolumeS3(config);
  console.log(`volume-s3: S3 endpoint of ${config.VOLUME_S3_DATA_CENTER} at ${service.url} (region ${service.region})`);
  const stop = (): void => void service.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
