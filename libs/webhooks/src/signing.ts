import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** Bytes of randomness in a signing secret (Standard Webhooks asks for 24 to 64). */
const SECRET_BYTES = 32;

/** A new Standard Webhooks signing secret, `whsec_<base64 of 32 random bytes>`. */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** The Standard Webhooks id of a delivery: the same on every attempt, so receivers can drop repeats. */
export function messageIdOf(deliveryId: string): string {
  return `msg_${deliveryId}`;
}

/**
 * Standard Webhooks headers for one request: `webhook-id`, `webhook-timestamp` (Unix seconds) and
 * `webhook-signature` = `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` under the account's secret.
 */
export function signatureHeaders(secret: string, messageId: string, at: Date, body: string): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(messageId, at, body),
  };
}
