import { resolve } from 'node:path';
import { databaseEnv, encryptionEnv, envBoolean, envInt, loadConfigOrExit, z } from '@runplane/config';
import { engineBinaryPath } from '@runplane/volume-buckets';

/** volume-s3 environment: the database and key (S3 keys are sealed), the data center it serves, where volumes live. */
export const volumeS3EnvSchema = z.object({
  ...databaseEnv,
  ...encryptionEnv,
  /** The data center whose network volumes this endpoint serves; callers sign for its id in lower case as region. */
  VOLUME_S3_DATA_CENTER: z.string().min(1).default('EU-RO-1'),
  /** One directory per network volume, named by its id (the local driver gives Pods the same directories). */
  VOLUME_S3_VOLUMES_DIR: z.string().min(1).default(resolve('.runplane', 'volumes')),
  /** The engine's object metadata (ETags, content types), kept outside the volumes. */
  VOLUME_S3_METADATA_DIR: z.string().min(1).default(resolve('.runplane', 'volume-s3')),
  /**
   * The versitygw binary, relative to the working directory or absolute; default: where `npm run s3:build` caches it.
   * The image sets `bin/versitygw` (/app/bin/versitygw, built by its s3-engine stage).
   */
  VOLUME_S3_ENGINE_BIN: z
    .string()
    .min(1)
    .default(engineBinaryPath())
    .transform((binary) => resolve(binary)),
  /** Start without a built engine (S3 requests then answer 503), as `npm start` does; otherwise a missing one stops. */
  VOLUME_S3_ENGINE_OPTIONAL: envBoolean(false),
  VOLUME_S3_HOST: z.string().min(1).default('127.0.0.1'),
  VOLUME_S3_PORT: envInt({ min: 0, max: 65535, default: 8089 }),
});
/** Parsed volume-s3 configuration. */
export type VolumeS3Config = z.infer<typeof volumeS3EnvSchema>;

/** Parses the process environment once; a bad value stops the process with a message naming it. */
export function loadVolumeS3Config(): VolumeS3Config {
  return loadConfigOrExit(volumeS3EnvSchema, process.env);
}
