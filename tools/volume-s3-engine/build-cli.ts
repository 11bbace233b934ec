import { engineBinaryPath } from '@runplane/volume-buckets';
import { ensureEngineBinary } from './build';

/** `npm run s3:build`: builds the S3 engine (versitygw) of the volume S3 endpoint into the cache when missing or stale. */
async function main(): Promise<void> {
  const started = Date.now();
  const built = await ensureEngineBinary();
  const seconds = Math.round((Date.now() - started) / 1000);
  process.stdout.write(built ? `built ${engineBinaryPath()} in ${seconds} s\n` : 'S3 engine is up to date\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
