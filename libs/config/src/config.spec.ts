import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { redisConnectionOptions } from '@runplane/contracts';
import {
  ConfigError,
  databaseEnv,
  encryptionEnv,
  envBoolean,
  httpEnv,
  loadConfig,
  logEnv,
  otelEnv,
  redisEnv,
  z,
} from './index';

const schema = z.object({
  ...databaseEnv,
  ...redisEnv,
  ...httpEnv(8080),
  ...logEnv,
  ...otelEnv,
  ...encryptionEnv,
  FEATURE_X: envBoolean(false),
});

const HEX_KEY = 'ab'.repeat(32);
const goodEnv = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/runplane', RUNPLANE_ENCRYPTION_KEY: HEX_KEY };

function issuesFor(env: Record<string, string | undefined>): string[] {
  try {
    loadConfig(schema, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => i.variable);
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('parses a good env and applies defaults', () => {
    const config = loadConfig(schema, goodEnv);
    expect(config).toMatchObject({
      DATABASE_URL: goodEnv.DATABASE_URL,
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_PREFIX: 'runplane',
      PORT: 8080,
      HOST: '127.0.0.1',
      BODY_LIMIT_BYTES: 10 * 1024 * 1024,
      LOG_LEVEL: 'info',
      FEATURE_X: false,
    });
    expect(config.OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    expect(config.RUNPLANE_ENCRYPTION_KEY).toEqual(Buffer.from(HEX_KEY, 'hex'));
  });

  it('coerces numbers and booleans and accepts a base64 key', () => {
    const key = Buffer.alloc(32, 7);
    const config = loadConfig(schema, {
      ...goodEnv,
      DATABASE_URL: 'postgresql://u:p@db/x',
      PORT: '3001',
      FEATURE_X: 'TRUE',
      LOG_LEVEL: 'debug',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      RUNPLANE_ENCRYPTION_KEY: key.toString('base64'),
    });
    expect(config.PORT).toBe(3001);
    expect(config.FEATURE_X).toBe(true);
    expect(config.LOG_LEVEL).toBe('debug');
    expect(config.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://collector:4318');
    expect(config.RUNPLANE_ENCRYPTION_KEY.equals(key)).toBe(true);
  });

  it('accepts a Redis Sentinel URL: the Sentinels and the name of the master they watch', () => {
    const url = 'rediss+sentinel://:s%40cret@sentinel-0:26379,[::1]:26380/my-master/2';
    expect(loadConfig(schema, { ...goodEnv, REDIS_URL: url }).REDIS_URL).toBe(url);
    expect(redisConnectionOptions(url)).toEqual({
      sentinels: [
        { host: 'sentinel-0', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      name: 'my-master',
      password: 's@cret',
      db: 2,
      tls: {},
      sentinelTLS: {},
      enableTLSForSentinelMode: true,
    });
    expect(redisConnectionOptions('rediss://user:pw@redis:6380/1')).toEqual({
      host: 'redis',
      port: 6380,
      username: 'user',
      password: 'pw',
      db: 1,
      tls: {},
    });
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig(schema, { ...goodEnv, PORT: '', LOG_LEVEL: '' })).toMatchObject({
      PORT: 8080,
      LOG_LEVEL: 'info',
    });
  });

  it.each([
    ['DATABASE_URL', undefined],
    ['DATABASE_URL', 'mysql://localhost/x'],
    ['DATABASE_URL', 'not a url'],
    ['REDIS_URL', 'http://localhost:6379'],
    ['REDIS_URL', 'redis+sentinel://sentinel-0:26379'],
    ['REDIS_URL', 'redis+sentinel://sentinel-0,sentinel-1:26379/mymaster'],
    ['REDIS_URL', 'redis+sentinel://sentinel-0:99999/mymaster'],
    ['REDIS_PREFIX', 'has space'],
    ['PORT', 'abc'],
    ['PORT', '0'],
    ['PORT', '70000'],
    ['PORT', '80.5'],
    ['BODY_LIMIT_BYTES', '-1'],
    ['LOG_LEVEL', 'verbose'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318'],
    ['RUNPLANE_ENCRYPTION_KEY', undefined],
    ['RUNPLANE_ENCRYPTION_KEY', 'abcd'],
    ['RUNPLANE_ENCRYPTION_KEY', Buffer.alloc(16).toString('base64')],
    ['FEATURE_X', 'maybe'],
  ])('rejects %s=%p naming the variable', (variable, value) => {
    expect(issuesFor({ ...goodEnv, [variable]: value })).toEqual([variable]);
  });

  it('names every bad variable in one error message', () => {
    expect(() => loadConfig(schema, { PORT: 'x' })).toThrow(
      /Invalid configuration: .*DATABASE_URL: .*PORT: expected a number.*RUNPLANE_ENCRYPTION_KEY/,
    );
  });
});

describe('loadConfigOrExit', () => {
  const fixture = path.join(__dirname, '__fixtures__', 'exit-on-bad-config.ts');
  const node = path.resolve(__dirname, '../../../node_modules/.bin/node');

  function run(env: Record<string, string>) {
    return spawnSync(node, ['-r', '@swc-node/register', fixture], {
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
      timeout: 30_000,
    });
  }

  it('exits 78 and prints the bad variable', () => {
    const child = run({ PORT: 'abc' });
    expect(child.status).toBe(78);
    expect(child.stderr).toContain('Invalid configuration: PORT: expected a number');
  });

  it('returns the config when the env is good', () => {
    const child = run({ PORT: '4000' });
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual({ PORT: 4000, HOST: '127.0.0.1', BODY_LIMIT_BYTES: 10485760 });
  });
});
