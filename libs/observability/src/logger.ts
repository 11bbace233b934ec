import pino from 'pino';

/** Runplane's structured logger (pino). */
export type Logger = pino.Logger;

/** Options for createLogger. */
export interface LoggerOptions {
  serviceName: string;
  level: string;
  /** Where JSON lines go; stdout when omitted (tests pass a memory stream). */
  destination?: pino.DestinationStream;
}

const SECRET_FIELDS = [
  'password',
  'secret',
  'apiKey',
  'api_key',
  'token',
  'accessToken',
  'refreshToken',
  'key',
  'encryptionKey',
  'clientSecret',
];
const SECRET_HEADERS = ['authorization', '["x-api-key"]', 'cookie', '["set-cookie"]', '["proxy-authorization"]'];
const FIELD_DEPTH = 4;
const HEADER_DEPTH = 3;

function atDepths(leaf: string, maxDepth: number): string[] {
  return Array.from({ length: maxDepth }, (_, depth) => [...Array<string>(depth).fill('*'), leaf].join('.'));
}

/** Redaction paths: secret-named fields at any of the first levels, and credential headers under `headers`. */
export function redactionPaths(): string[] {
  const fields = SECRET_FIELDS.flatMap((field) => atDepths(field, FIELD_DEPTH));
  const headers = SECRET_HEADERS.flatMap((header) =>
    atDepths(header.startsWith('[') ? `headers${header}` : `headers.${header}`, HEADER_DEPTH),
  );
  return [...new Set([...fields, ...headers])];
}

/** pino JSON logger, base {service}, secrets redacted (authorization/x-api-key headers, password, secret, apiKey, token, key fields). */
export function createLogger(opts: LoggerOptions): Logger {
  const options: pino.LoggerOptions = {
    level: opts.level,
    base: { service: opts.serviceName },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: redactionPaths(), censor: '[Redacted]' },
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}
