import type { DbClient, SecretBox } from '@runplane/db';
import { S3KeysRepository } from './s3-keys.repository';
import { S3KeysService } from './s3-keys.service';

export { S3KeysRepository } from './s3-keys.repository';
export { S3KeysService, type S3Credential } from './s3-keys.service';

/** The S3 keys service over one database client and the deployment's SecretBox. */
export function createS3KeysService(db: DbClient, box: SecretBox): S3KeysService {
  return new S3KeysService(new S3KeysRepository(db), box);
}
