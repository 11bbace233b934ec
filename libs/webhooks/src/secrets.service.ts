import type { WebhookSecretDto } from '@runplane/contracts';
import type { WebhookSecretsRepository } from './secrets.repository';
import { generateSigningSecret } from './signing';

/**
 * Seals secrets at rest (AES-256-GCM with associated data). SecretBox of @runplane/db fits; the apps pass it in.
 */
export interface SecretSealer {
  seal(plaintext: string, associatedData: string): string;
  open(envelope: string, associatedData: string): string;
}

const aad = (accountId: string): string => `webhook-signing-secret:${accountId}`;

/** Each account's Standard Webhooks signing secret: created on first use, rotated on request, sealed at rest. */
export class WebhookSecretsService {
  constructor(
    private readonly secrets: WebhookSecretsRepository,
    private readonly sealer: SecretSealer,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The account's secret in clear; two concurrent first uses agree on one secret. */
  async current(accountId: string): Promise<string> {
    const row =
      (await this.secrets.find(accountId)) ??
      (await this.secrets.createIfMissing(accountId, this.sealer.seal(generateSigningSecret(), aad(accountId))));
    return this.sealer.open(row.secretEncrypted, aad(accountId));
  }

  /** `GET /v1/webhooks/secret`. */
  async get(accountId: string): Promise<WebhookSecretDto> {
    return { secret: await this.current(accountId) };
  }

  /** `POST /v1/webhooks/secret/rotate`: a new secret signs every request from now on; the old one stops verifying. */
  async rotate(accountId: string): Promise<WebhookSecretDto> {
    const secret = generateSigningSecret();
    await this.secrets.replace(accountId, this.sealer.seal(secret, aad(accountId)), this.now());
    return { secret };
  }
}
