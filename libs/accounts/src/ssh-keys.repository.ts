import { type DbClient, newId, withTransaction } from '@runplane/db';

/** The environment variable a Pod's image reads its authorized SSH keys from (RunPod's convention). */
export const PUBLIC_KEY_ENV = 'PUBLIC_KEY';

/**
 * An account's SSH public keys, in the order it listed them. `PUT /v2/account/ssh-keys` replaces them all; new Pods
 * get them in PUBLIC_KEY (one key a line), as RunPod's images expect.
 */
export class SshKeysRepository {
  constructor(private readonly db: DbClient) {}

  async list(accountId: string): Promise<string[]> {
    const rows = await this.db.sshKey.findMany({ where: { accountId }, orderBy: { position: 'asc' } });
    return rows.map((row) => row.publicKey);
  }

  /** Replaces the account's keys with `keys` (none: removes them all) in one transaction; returns them. */
  async replace(accountId: string, keys: readonly string[]): Promise<string[]> {
    await withTransaction(this.db, async (tx) => {
      await tx.sshKey.deleteMany({ where: { accountId } });
      if (keys.length > 0) {
        await tx.sshKey.createMany({
          data: keys.map((publicKey, position) => ({ id: newId(), accountId, position, publicKey })),
        });
      }
    });
    return this.list(accountId);
  }

  /** The value of PUBLIC_KEY for a new Pod of the account (its keys, one a line), or undefined when it has none. */
  async publicKeyEnv(accountId: string): Promise<string | undefined> {
    const keys = await this.list(accountId);
    return keys.length > 0 ? keys.join('\n') : undefined;
  }
}
