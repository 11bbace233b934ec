import { randomBytes, randomInt } from 'node:crypto';
import { NotFoundError, type S3KeyCreateInput, type S3KeyDto } from '@runplane/contracts';
import { newId, type S3Key, type SecretBox } from '@runplane/db';
import type { S3KeysRepository } from './s3-keys.repository';

const ACCESS_KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** `RPS3` and 16 base32 characters: 20 characters like AWS's access key ids, recognisably Runplane's. */
function newAccessKeyId(): string {
  let id = 'RPS3';
  for (let i = 0; i < 16; i++) id += ACCESS_KEY_ALPHABET[randomInt(ACCESS_KEY_ALPHABET.length)];
  return id;
}

/** 40 characters of base64url, as long as AWS's secret access keys. */
function newSecretAccessKey(): string {
  return randomBytes(30).toString('base64url');
}

function toDto(row: S3Key): S3KeyDto {
  return { id: row.id, name: row.name, accessKeyId: row.accessKeyId, createdAt: row.createdAt.toISOString() };
}

/** An S3 key the S3 endpoint verifies signatures with. */
export interface S3Credential {
  accountId: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/**
 * S3 access keys of an account: created (the secret returned once, stored sealed by SecretBox with the access key id
 * as associated data), listed, revoked; the S3 endpoint resolves an access key id to its account and secret.
 */
export class S3KeysService {
  constructor(
    private readonly keys: S3KeysRepository,
    private readonly box: SecretBox,
  ) {}

  async create(accountId: string, input: S3KeyCreateInput): Promise<{ key: S3KeyDto; secretAccessKey: string }> {
    const accessKeyId = newAccessKeyId();
    const secretAccessKey = newSecretAccessKey();
    const row = await this.keys.create({
      id: newId(),
      accountId,
      name: input.name,
      accessKeyId,
      secretSealed: this.box.seal(secretAccessKey, accessKeyId),
    });
    return { key: toDto(row), secretAccessKey };
  }

  async list(accountId: string): Promise<S3KeyDto[]> {
    return (await this.keys.listByAccount(accountId)).map(toDto);
  }

  /** Revokes a key: the S3 endpoint refuses it from its next request on. */
  async revoke(accountId: string, id: string): Promise<void> {
    if (!(await this.keys.delete(accountId, id))) throw new NotFoundError('S3 key');
  }

  /** The account and secret of an access key id, or null for an unknown or revoked one. */
  async credential(accessKeyId: string): Promise<S3Credential | null> {
    const row = await this.keys.findByAccessKeyId(accessKeyId);
    if (!row) return null;
    return { accountId: row.accountId, accessKeyId, secretAccessKey: this.box.open(row.secretSealed, accessKeyId) };
  }
}
