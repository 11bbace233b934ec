import type { DbClient, S3Key } from '@runplane/db';

/** The rows of `s3_keys`; every read but the S3 endpoint's lookup by access key id is scoped to an account. */
export class S3KeysRepository {
  constructor(private readonly db: DbClient) {}

  create(row: Pick<S3Key, 'id' | 'accountId' | 'name' | 'accessKeyId' | 'secretSealed'>): Promise<S3Key> {
    return this.db.s3Key.create({ data: row });
  }

  listByAccount(accountId: string): Promise<S3Key[]> {
    return this.db.s3Key.findMany({ where: { accountId }, orderBy: { createdAt: 'asc' } });
  }

  /** True when the key existed in the account and is now gone. */
  async delete(accountId: string, id: string): Promise<boolean> {
    const { count } = await this.db.s3Key.deleteMany({ where: { id, accountId } });
    return count > 0;
  }

  findByAccessKeyId(accessKeyId: string): Promise<S3Key | null> {
    return this.db.s3Key.findUnique({ where: { accessKeyId } });
  }
}
