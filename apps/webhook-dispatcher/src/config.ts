import { encryptionEnv, envInt, loadConfigOrExit, z } from '@runplane/config';
import { serviceEnvSchema } from '@runplane/http';
import { DEFAULT_DELIVERY_POLICY, parseAllowedHosts } from '@runplane/webhooks';

/** Comma-separated hosts or host:port the operator lets webhooks reach even on private addresses. */
const allowedHosts = z
  .string()
  .optional()
  .transform((value, ctx): string[] => {
    const entries = (value ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    try {
      parseAllowedHosts(entries);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
    return entries;
  });

/**
 * WebhookDispatcher environment: the common service settings, the key that opens accounts' signing secrets, and
 * the delivery policy (RunPod's defaults: 3 attempts 10 s apart).
 */
export const webhookDispatcherEnvSchema = serviceEnvSchema(8083).extend({
  ...encryptionEnv,
  /** Attempts per delivery, the first included. */
  WEBHOOK_MAX_ATTEMPTS: envInt({ min: 1, max: 20, default: DEFAULT_DELIVERY_POLICY.maxAttempts }),
  /** Wait between a failed attempt and the next. */
  WEBHOOK_ATTEMPT_SPACING_MS: envInt({ min: 0, max: 86_400_000, default: DEFAULT_DELIVERY_POLICY.spacingMs }),
  /** Longest one attempt may take (connect, answer and the first 512 bytes of the body). */
  WEBHOOK_ATTEMPT_TIMEOUT_MS: envInt({ min: 100, max: 300_000, default: DEFAULT_DELIVERY_POLICY.timeoutMs }),
  /** Attempts one dispatcher runs at the same time. */
  WEBHOOK_CONCURRENCY: envInt({ min: 1, max: 1_000, default: 20 }),
  WEBHOOK_ALLOWED_HOSTS: allowedHosts,
  /** How often overdue deliveries are looked for (their attempt job lost, or failed on the dispatcher's own trouble); 0 = never. */
  WEBHOOK_SWEEP_INTERVAL_MS: envInt({ min: 0, max: 3_600_000, default: 60_000 }),
  /** How long past its due time a PENDING delivery's attempt counts as lost and is queued again. */
  WEBHOOK_SWEEP_GRACE_MS: envInt({ min: 0, max: 86_400_000, default: 120_000 }),
});
/** Parsed webhook-dispatcher configuration. */
export type WebhookDispatcherConfig = z.infer<typeof webhookDispatcherEnvSchema>;

/** Parses the process environment once; a bad value stops the process with a message naming it. */
export function loadWebhookDispatcherConfig(): WebhookDispatcherConfig {
  return loadConfigOrExit(webhookDispatcherEnvSchema, process.env);
}
