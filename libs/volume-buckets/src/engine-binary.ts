import os from 'node:os';
import path from 'node:path';

/** The versitygw release the S3 endpoint runs (tools/volume-s3-engine builds it from this module version). */
export const ENGINE_VERSION = 'v1.8.0';

/**
 * Where `npm run s3:build` caches the engine: `$RUNPLANE_S3_ENGINE_CACHE` or ~/.cache/runplane/s3-engine, one folder
 * per version, outside the repository like the Kubernetes test binaries.
 */
export function engineBinaryPath(env: NodeJS.ProcessEnv = process.env): string {
  const root = env['RUNPLANE_S3_ENGINE_CACHE'] ?? path.join(os.homedir(), '.cache', 'runplane', 's3-engine');
  return path.join(root, `versitygw-${ENGINE_VERSION}`, 'bin', 'versitygw');
}
