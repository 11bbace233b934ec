import type { DbClient, WebhookSigningSecret } from '@runplane/db';

/** Persistence of accounts' sealed webhook signing secrets (one row per account). */
export class WebhookSecretsRepository {
  constructor(private readonly db: DbClient) {}

  find(accountId: string): Promise<WebhookSigningSecret | null> {
    return this.db.webhookSigningSecret.findUnique({ where: { accountId } });
  }

  /** Stores `secretEncrypted` unless the account already has a secret; returns the row that is stored either way. */
  async createIfMissing(accountId: string, secretEncrypted: string): Promise<WebhookSigningSecret> {
    await this.db.webhookSigningSecret.createMany({ data: [{ accountId, secretEncrypted }], skipDuplicates: true });
    return this.db.webhookSigningSecret.findUniqueOrThrow({ where: { accountId } });
  }

  /** Replaces the account's secret (creating it when there was none). */
  replace(accountId: string, secretEncrypted: string, at: Date): Promise<WebhookSigningSecret> {
    return this.db.webhookSigningSecret.upsert({
      where: { accountId },
      create: { accountId, secretEncrypted, createdAt: at, rotatedAt: at },
      update: { secretEncrypted, rotatedAt: at },
    });
  }
}
