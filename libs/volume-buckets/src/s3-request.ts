import type { IncomingMessage } from 'node:http';
import { S3Error } from './s3-errors';
import type { SignableRequest } from './sigv4';

/** A request to the S3 endpoint, addressed path-style: `/<bucket>/<key>`. */
export interface S3Request extends SignableRequest {
  /** The raw target (`path?query`) as received, forwarded to the engine unchanged. */
  target: string;
  bucket: string | null;
  key: string | null;
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return headers;
}

function queryOf(search: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of search) {
    const seen = query[name];
    query[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return query;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new S3Error(400, 'InvalidURI', 'Could not parse the specified URI');
  }
}

/**
 * Keys are paths of the volume's directory: a `.` or `..` segment (plain or escaped) could name another volume's
 * files once the engine resolves it, so it is refused outright.
 */
function assertPlainKey(key: string | null): void {
  if (key?.split('/').some((segment) => segment === '.' || segment === '..')) {
    throw new S3Error(400, 'InvalidArgument', 'Object keys may not have "." or ".." segments');
  }
}

/** Splits a path-style request into bucket and key; null bucket for `/` (ListBuckets). */
export function parseS3Request(req: IncomingMessage): S3Request {
  const target = req.url ?? '/';
  const queryAt = target.indexOf('?');
  const path = queryAt < 0 ? target : target.slice(0, queryAt);
  const search = new URLSearchParams(queryAt < 0 ? '' : target.slice(queryAt + 1));
  const [, bucket = '', ...rest] = path.split('/');
  const key = rest.length === 0 || (rest.length === 1 && rest[0] === '') ? null : decoded(rest.join('/'));
  assertPlainKey(key);
  return {
    method: req.method ?? 'GET',
    path,
    target,
    query: queryOf(search),
    headers: headersOf(req),
    bucket: bucket === '' ? null : decoded(bucket),
    key,
  };
}

/** The source bucket and key of CopyObject / UploadPartCopy (`x-amz-copy-source: /bucket/key[?versionId=]`). */
export function copySourceOf(request: S3Request): { bucket: string; key: string } | null {
  const header = request.headers['x-amz-copy-source'];
  if (header === undefined) return null;
  const [path = ''] = decoded(header).split('?versionId=');
  const [bucket = '', ...key] = path.replace(/^\//, '').split('/');
  assertPlainKey(key.join('/'));
  return { bucket, key: key.join('/') };
}
