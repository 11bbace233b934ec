import { mkdirSync } from 'node:fs';
import path from 'node:path';

/** The variable that tells a local workload where its network volume's directory is (its mount, locally). */
export const VOLUME_PATH_ENV = 'RUNPLANE_VOLUME_PATH';

/**
 * A network volume under the local driver is the directory `<volumesDir>/<volumeId>` (created on first use), the
 * same directory the data center's S3 endpoint serves as the volume's bucket. Answers the workload's variable for it.
 */
export function localVolumeEnv(volumesDir: string, volumeId: string | null | undefined): Record<string, string> {
  if (!volumeId) return {};
  const dir = path.join(volumesDir, volumeId);
  mkdirSync(dir, { recursive: true });
  return { [VOLUME_PATH_ENV]: dir };
}
