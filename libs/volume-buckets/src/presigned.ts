import { timingSafeEqual } from 'node:crypto';
import { parseAmzDate, signableHttpRequest, type SignableRequest, type SigningKey, signer } from './sigv4';

/** The SigV4 fields of a presigned URL's query (`X-Amz-Credential`, `X-Amz-Signature` ...). */
export interface PresignedAuth {
  accessKeyId: string;
  region: string;
  service: string;
  date: Date;
  expiresSeconds: number;
  signedHeaders: string[];
  signature: string;
}

/** The query parameters that carry a presigned URL's signature; the engine gets the request without them. */
export const PRESIGN_PARAMS = [
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Signature',
];

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? undefined : value);

/** The presigned-URL fields of a query; null when it has no `X-Amz-Signature` or they are malformed. */
export function parsePresigned(query: SignableRequest['query']): PresignedAuth | null {
  const signature = single(query['X-Amz-Signature']);
  if (signature === undefined || single(query['X-Amz-Algorithm']) !== 'AWS4-HMAC-SHA256') return null;
  const credential = /^([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request$/.exec(single(query['X-Amz-Credential']) ?? '');
  const date = parseAmzDate(single(query['X-Amz-Date']));
  const expiresSeconds = Number(single(query['X-Amz-Expires']));
  const signedHeaders = single(query['X-Amz-SignedHeaders']);
  if (
    !credential ||
    !date ||
    !Number.isInteger(expiresSeconds) ||
    !signedHeaders ||
    !/^[0-9a-f]{64}$/.test(signature)
  ) {
    return null;
  }
  const [, accessKeyId = '', , region = '', service = ''] = credential;
  return { accessKeyId, region, service, date, expiresSeconds, signedHeaders: signedHeaders.split(';'), signature };
}

/** The request without its presigned-URL parameters, as it is signed and as the engine gets it. */
export function withoutPresignParams<T extends SignableRequest & { target: string }>(request: T): T {
  const query = Object.fromEntries(Object.entries(request.query).filter(([name]) => !PRESIGN_PARAMS.includes(name)));
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) for (const item of [value].flat()) search.append(name, item);
  const rest = search.toString();
  return { ...request, query, target: rest === '' ? request.path : `${request.path}?${rest}` };
}

/** True when the presigned URL's signature is the one the caller's secret gives (payload unsigned, as S3's). */
export async function isPresignedValid(
  request: SignableRequest,
  auth: PresignedAuth,
  secretAccessKey: string,
): Promise<boolean> {
  const key: SigningKey = { accessKeyId: auth.accessKeyId, secretAccessKey, region: auth.region };
  const headers: Record<string, string> = { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' };
  for (const name of auth.signedHeaders) {
    const value = request.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  const unsigned = new Set(['x-amz-content-sha256']);
  const presigned = await signer(key).presign(signableHttpRequest(request, headers), {
    signingDate: auth.date,
    expiresIn: auth.expiresSeconds,
    signableHeaders: new Set(auth.signedHeaders),
    unsignableHeaders: unsigned,
    unhoistableHeaders: unsigned,
  });
  const expected = String(presigned.query?.['X-Amz-Signature'] ?? '');
  return (
    expected.length === auth.signature.length && timingSafeEqual(Buffer.from(expected), Buffer.from(auth.signature))
  );
}
