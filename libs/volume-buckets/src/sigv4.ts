import { timingSafeEqual } from 'node:crypto';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';

/** A request as SigV4 sees it: the raw (still encoded) path, the decoded query and lower-case headers. */
export interface SignableRequest {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
}

/** The fields of an `Authorization: AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...` header. */
export interface SigV4Authorization {
  accessKeyId: string;
  /** `yyyymmdd` of the credential scope. */
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

/** A key pair and the region it signs for. */
export interface SigningKey {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/;

/** Parses a SigV4 Authorization header; null when it is not one. */
export function parseAuthorization(header: string | undefined): SigV4Authorization | null {
  const match = header === undefined ? null : AUTHORIZATION.exec(header.trim());
  if (!match) return null;
  const [, accessKeyId = '', date = '', region = '', service = '', signedHeaders = '', signature = ''] = match;
  return { accessKeyId, date, region, service, signedHeaders: signedHeaders.split(';'), signature };
}

/** `x-amz-date` (`yyyymmddThhmmssZ`) as a Date; null when malformed. */
export function parseAmzDate(value: string | undefined): Date | null {
  const match = value === undefined ? null : /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!match) return null;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  const date = new Date(Date.UTC(y ?? 0, (mo ?? 1) - 1, d ?? 0, h ?? 0, mi ?? 0, s ?? 0));
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The S3 signer of a key. */
export function signer(key: SigningKey): SignatureV4 {
  return new SignatureV4({
    credentials: { accessKeyId: key.accessKeyId, secretAccessKey: key.secretAccessKey },
    region: key.region,
    service: 's3',
    sha256: Hash.bind(null, 'sha256'),
    // S3 signs the path as sent (encoded once), unlike other AWS services.
    uriEscapePath: false,
    applyChecksum: false,
  });
}

/** A request as the S3 signer reads it. */
export type SignerRequest = Parameters<SignatureV4['presign']>[0];

/** The request as the signer reads it, with only `headers` (the host among them). */
export function signableHttpRequest(request: SignableRequest, headers: Record<string, string>): SignerRequest {
  return {
    method: request.method,
    protocol: 'http:',
    hostname: headers['host'] ?? '',
    path: request.path,
    query: request.query,
    headers,
  };
}

/**
 * Signs the request's `signedHeaders` (and nothing else) with `key` at `date`; the payload hash is the request's own
 * `x-amz-content-sha256`, so the body is never read here. Answers the whole Authorization header.
 */
export async function authorizationFor(
  request: SignableRequest,
  signedHeaders: readonly string[],
  key: SigningKey,
  date: Date,
): Promise<string> {
  const headers = Object.fromEntries(
    signedHeaders.filter((name) => request.headers[name] !== undefined).map((name) => [name, request.headers[name]]),
  ) as Record<string, string>;
  const signed = await signer(key).sign(signableHttpRequest(request, headers), {
    signingDate: date,
    signableHeaders: new Set(signedHeaders),
  });
  return String(signed.headers['authorization']);
}

/** True when `auth.signature` is the signature of the request under the caller's secret. */
export async function isSignatureValid(
  request: SignableRequest,
  auth: SigV4Authorization,
  secretAccessKey: string,
  date: Date,
): Promise<boolean> {
  const key = { accessKeyId: auth.accessKeyId, secretAccessKey, region: auth.region };
  const expected = parseAuthorization(await authorizationFor(request, auth.signedHeaders, key, date));
  if (!expected) return false;
  return timingSafeEqual(Buffer.from(expected.signature), Buffer.from(auth.signature));
}
