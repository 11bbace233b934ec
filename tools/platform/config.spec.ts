import { readRunnerConfig, RunnerConfigError } from './config';

describe('readRunnerConfig', () => {
  it('defaults to the documented ports, host and state dir', () => {
    const config = readRunnerConfig({ PATH: '/usr/bin' }, '/repo');
    expect(config.ports).toEqual({
      gateway: 8080,
      'job-router': 8081,
      scheduler: 8082,
      'webhook-dispatcher': 8083,
      'billing-aggregator': 8084,
      'volume-s3': 8089,
    });
    expect(config).toMatchObject({
      host: '127.0.0.1',
      stateDir: '/repo/.runplane',
      logLevel: 'info',
      databaseUrl: undefined,
      redisUrl: undefined,
      encryptionKey: undefined,
      inheritedEnv: { PATH: '/usr/bin' },
      restart: { backoffMs: 1_000, crashLimit: 5, windowMs: 300_000 },
    });
  });

  it('takes ports, URLs, state dir and keys from the environment', () => {
    const key = 'ab'.repeat(32);
    const config = readRunnerConfig(
      {
        RUNPLANE_GATEWAY_PORT: '9000',
        RUNPLANE_JOB_API_PORT: '9001',
        RUNPLANE_SCHEDULER_PORT: '9002',
        RUNPLANE_WEBHOOK_PORT: '9003',
        RUNPLANE_BILLING_PORT: '9004',
        RUNPLANE_S3_PORT: '9005',
        RUNPLANE_STATE_DIR: '/var/lib/rp',
        DATABASE_URL: 'postgres://db/x',
        REDIS_URL: ' redis://r:1 ',
        REDIS_PREFIX: 'p',
        RUNPLANE_ENCRYPTION_KEY: key,
        RUNPLANE_CATALOG_FILE: '/etc/catalog.json',
        DATABASE_URL_UNUSED: '',
        RUNPLANE_RESTART_BACKOFF_MS: '50',
        RUNPLANE_CRASH_LIMIT: '2',
        RUNPLANE_CRASH_WINDOW_MS: '600000',
      },
      '/repo',
    );
    expect(Object.values(config.ports)).toEqual([9000, 9001, 9002, 9003, 9004, 9005]);
    expect(config).toMatchObject({
      stateDir: '/var/lib/rp',
      databaseUrl: 'postgres://db/x',
      redisUrl: 'redis://r:1',
      redisPrefix: 'p',
      encryptionKey: key,
      catalogFile: '/etc/catalog.json',
      restart: { backoffMs: 50, crashLimit: 2, windowMs: 600_000 },
    });
  });

  it.each([
    [{ RUNPLANE_GATEWAY_PORT: 'eighty' }, /RUNPLANE_GATEWAY_PORT must be an integer/],
    [{ RUNPLANE_BILLING_PORT: '70000' }, /RUNPLANE_BILLING_PORT/],
    [{ RUNPLANE_GATEWAY_PORT: '8081' }, /must all differ/],
    [{ RUNPLANE_ENCRYPTION_KEY: 'short' }, /RUNPLANE_ENCRYPTION_KEY/],
    [{ RUNPLANE_READY_TIMEOUT_MS: '-1' }, /RUNPLANE_READY_TIMEOUT_MS/],
    [{ RUNPLANE_CRASH_LIMIT: '0' }, /RUNPLANE_CRASH_LIMIT must be an integer between 1/],
    [{ RUNPLANE_RESTART_BACKOFF_MS: 'soon' }, /RUNPLANE_RESTART_BACKOFF_MS/],
    [{ RUNPLANE_CRASH_WINDOW_MS: '0' }, /RUNPLANE_CRASH_WINDOW_MS/],
  ])('rejects %j with a message naming the variable', (env, message) => {
    expect(() => readRunnerConfig(env, '/repo')).toThrow(RunnerConfigError);
    expect(() => readRunnerConfig(env, '/repo')).toThrow(message);
  });
});
