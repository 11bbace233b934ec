import { isSentinelUrl, sentinelConnectionOptions } from '@runplane/contracts';
import { z } from 'zod';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const TRUE_VALUES = new Set(['true', '1', 'yes', 'on']);
const FALSE_VALUES = new Set(['false', '0', 'no', 'off']);

/** Boolean from env text ("true"/"false"/"1"/"0"/"yes"/"no"/"on"/"off"), with a default when unset. */
export function envBoolean(defaultValue: boolean) {
  return z
    .string()
    .optional()
    .transform((value, ctx): boolean => {
      if (value === undefined) return defaultValue;
      const lower = value.trim().toLowerCase();
      if (TRUE_VALUES.has(lower)) return true;
      if (FALSE_VALUES.has(lower)) return false;
      ctx.addIssue({ code: 'custom', message: `expected a boolean (true/false/1/0), got "${value}"` });
      return z.NEVER;
    });
}

/** Integer from env text within [min, max]; `defaultValue` applies when unset. */
export function envInt(opts: { min?: number; max?: number; default?: number } = {}) {
  let schema = z.coerce.number({ error: 'expected a number' }).int({ error: 'expected an integer' });
  if (opts.min !== undefined) schema = schema.min(opts.min, { error: `must be >= ${opts.min}` });
  if (opts.max !== undefined) schema = schema.max(opts.max, { error: `must be <= ${opts.max}` });
  return opts.default === undefined ? schema : schema.default(opts.default);
}

function urlWithProtocols(protocols: string[], label: string) {
  return z.string({ error: `required (${label})` }).refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    { error: `expected a ${label}` },
  );
}

/** Postgres connection: DATABASE_URL (postgres:// or postgresql://), required. */
export const databaseEnv = {
  DATABASE_URL: urlWithProtocols(['postgres:', 'postgresql:'], 'postgres:// or postgresql:// URL'),
};

/** Redis connection and the key prefix every Runplane key lives under. */
export const redisEnv = {
  /** One server (redis://, rediss://) or, for a replicated Redis, its Sentinels and master (redis+sentinel://). */
  REDIS_URL: z
    .string({ error: 'required (redis://, rediss:// or redis+sentinel:// URL)' })
    .superRefine((value, ctx) => {
      if (!isSentinelUrl(value)) {
        if (!urlWithProtocols(['redis:', 'rediss:'], '').safeParse(value).success)
          ctx.addIssue({ code: 'custom', message: 'expected a redis://, rediss:// or redis+sentinel:// URL' });
        return;
      }
      try {
        sentinelConnectionOptions(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
      }
    })
    .default('redis://127.0.0.1:6379'),
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_-]+$/, { error: 'expected letters, digits, ":", "_" or "-"' })
    .default('runplane'),
};

/** HTTP listener: PORT (1..65535), HOST, BODY_LIMIT_BYTES (default 10 MiB). */
export function httpEnv(defaultPort: number) {
  return {
    PORT: envInt({ min: 1, max: 65535, default: defaultPort }),
    HOST: z.string().min(1).default('127.0.0.1'),
    BODY_LIMIT_BYTES: envInt({ min: 1024, max: 1024 * 1024 * 1024, default: 10 * 1024 * 1024 }),
  };
}

/** Log level for pino. */
export const logEnv = {
  LOG_LEVEL: z.enum(LOG_LEVELS, { error: `expected one of ${LOG_LEVELS.join('|')}` }).default('info'),
};

/** OpenTelemetry: traces are exported only when an OTLP endpoint is set. */
export const otelEnv = {
  OTEL_EXPORTER_OTLP_ENDPOINT: urlWithProtocols(['http:', 'https:'], 'http(s):// URL').optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
};

function decodeKey(value: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/]{43}=?$/.test(value)) {
    const buffer = Buffer.from(value, 'base64');
    if (buffer.length === 32) return buffer;
  }
  return undefined;
}

/** Secret-encryption key: 64 hex chars or base64 of 32 bytes, transformed to a 32-byte Buffer. */
export const encryptionEnv = {
  RUNPLANE_ENCRYPTION_KEY: z
    .string({ error: 'required (64 hex characters or base64 of 32 bytes)' })
    .transform((value, ctx): Buffer => {
      const key = decodeKey(value.trim());
      if (key) return key;
      ctx.addIssue({ code: 'custom', message: 'expected 64 hex characters or base64 of 32 bytes' });
      return z.NEVER;
    }),
};

/**
 * The domain under which each load-balancing endpoint is a host (`<endpointId>.<domain>`), e.g. `lb.example.com`:
 * lower-cased DNS name, optional (unset = no load-balancing hosts).
 */
export const loadBalancerDomainEnv = {
  RUNPLANE_LB_DOMAIN: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^(?=.{1,200}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/, {
      error: 'expected a DNS domain, e.g. lb.example.com',
    })
    .optional(),
};
