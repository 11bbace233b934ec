import { randomBytes } from 'node:crypto';
import { webhookDispatcherEnvSchema } from './config';

const base = {
  DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/x',
  RUNPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
};

describe('webhook-dispatcher configuration', () => {
  it("defaults to RunPod's schedule: 3 attempts, 10 s apart, 10 s per attempt, no private hosts", () => {
    const config = webhookDispatcherEnvSchema.parse(base);
    expect(config).toMatchObject({
      PORT: 8083,
      WEBHOOK_MAX_ATTEMPTS: 3,
      WEBHOOK_ATTEMPT_SPACING_MS: 10_000,
      WEBHOOK_ATTEMPT_TIMEOUT_MS: 10_000,
      WEBHOOK_CONCURRENCY: 20,
      WEBHOOK_ALLOWED_HOSTS: [],
    });
    expect(config.RUNPLANE_ENCRYPTION_KEY).toHaveLength(32);
  });

  it('takes the policy and the allowed hosts from the environment', () => {
    const config = webhookDispatcherEnvSchema.parse({
      ...base,
      WEBHOOK_MAX_ATTEMPTS: '5',
      WEBHOOK_ATTEMPT_SPACING_MS: '200',
      WEBHOOK_ATTEMPT_TIMEOUT_MS: '1500',
      WEBHOOK_ALLOWED_HOSTS: ' hooks.internal , 127.0.0.1:9000,[::1]:9001 ',
    });
    expect(config).toMatchObject({
      WEBHOOK_MAX_ATTEMPTS: 5,
      WEBHOOK_ATTEMPT_SPACING_MS: 200,
      WEBHOOK_ATTEMPT_TIMEOUT_MS: 1500,
      WEBHOOK_ALLOWED_HOSTS: ['hooks.internal', '127.0.0.1:9000', '[::1]:9001'],
    });
  });

  it.each([
    [{ WEBHOOK_MAX_ATTEMPTS: '0' }, 'WEBHOOK_MAX_ATTEMPTS'],
    [{ WEBHOOK_ATTEMPT_SPACING_MS: '-1' }, 'WEBHOOK_ATTEMPT_SPACING_MS'],
    [{ WEBHOOK_ATTEMPT_TIMEOUT_MS: 'soon' }, 'WEBHOOK_ATTEMPT_TIMEOUT_MS'],
    [{ WEBHOOK_ALLOWED_HOSTS: 'http://x/' }, 'WEBHOOK_ALLOWED_HOSTS'],
    [{ RUNPLANE_ENCRYPTION_KEY: undefined }, 'RUNPLANE_ENCRYPTION_KEY'],
  ])('rejects %j, naming %s', (env, name) => {
    const result = webhookDispatcherEnvSchema.safeParse({ ...base, ...env });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path[0])).toContain(name);
  });
});
