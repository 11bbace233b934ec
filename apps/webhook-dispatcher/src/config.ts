import { loadConfigOrExit } from '@runplane/config';
import { serviceEnvSchema } from '@runplane/http';

/** WebhookDispatcher environment. */
export const webhookDispatcherEnvSchema = serviceEnvSchema(8083);
/** Parsed webhook-dispatcher configuration. */
export type WebhookDispatcherConfig = ReturnType<typeof webhookDispatcherEnvSchema.parse>;

/** Parses the process environment once; a bad value stops the process with a message naming it. */
export function loadWebhookDispatcherConfig(): WebhookDispatcherConfig {
  return loadConfigOrExit(webhookDispatcherEnvSchema, process.env);
}
