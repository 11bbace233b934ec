import { stat } from 'node:fs/promises';
import path from 'node:path';
import { S3Error } from './s3-errors';
import { copySourceOf, type S3Request } from './s3-request';
import { isPresignedValid, parsePresigned, type PresignedAuth, withoutPresignParams } from './presigned';
import { isSignatureValid, parseAmzDate, parseAuthorization } from './sigv4';
import { directoryBytes, type WriteReservations } from './volume-usage';

/** A network volume the caller may reach: its id is the bucket name. */
export interface S3Volume {
  id: string;
  sizeBytes: number;
}

/** What the S3 endpoint asks Runplane: whose key this is, and which volumes of an account live in its data center. */
export interface S3Directory {
  credential(accessKeyId: string): Promise<{ accountId: string; secretAccessKey: string } | null>;
  volumes(accountId: string): Promise<S3Volume[]>;
}

/** A caller whose signature checked out, and the request the engine gets for it. */
export interface S3Caller {
  accountId: string;
  /** The request to sign for the engine (a presigned URL's without its signature), which headers, and when. */
  upstream: { request: S3Request; signedHeaders: string[]; date: Date };
}

/** Signed requests older or newer than this are refused, as S3 does. */
const MAX_CLOCK_SKEW_MS = 15 * 60_000;
/** The longest a presigned URL may be valid, as S3 allows: 7 days. */
const MAX_PRESIGNED_SECONDS = 604_800;

function assertScope(auth: { region: string; service: string }, region: string): void {
  if (auth.region.toLowerCase() !== region || auth.service !== 's3') {
    throw new S3Error(400, 'AuthorizationHeaderMalformed', `Sign for region '${region}' and service 's3'`);
  }
}

async function credentialOf(
  directory: S3Directory,
  accessKeyId: string,
): Promise<{ accountId: string; secretAccessKey: string }> {
  const credential = await directory.credential(accessKeyId);
  if (!credential) throw new S3Error(403, 'InvalidAccessKeyId', 'The access key id does not exist or was revoked');
  return credential;
}

const signatureMismatch = () =>
  new S3Error(403, 'SignatureDoesNotMatch', 'The request signature does not match the signature calculated');

/** `yyyymmddThhmmssZ`, SigV4's x-amz-date. */
const amzDate = (date: Date): string =>
  date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/** A presigned URL (query-string SigV4): checked, then sent on to the engine as a header-signed request. */
async function authenticatePresigned(
  request: S3Request,
  auth: PresignedAuth,
  context: { directory: S3Directory; region: string },
): Promise<S3Caller> {
  assertScope(auth, context.region);
  if (auth.expiresSeconds < 1 || auth.expiresSeconds > MAX_PRESIGNED_SECONDS) {
    throw new S3Error(400, 'AuthorizationQueryParametersError', 'X-Amz-Expires must be 1 to 604800 seconds');
  }
  if (Date.now() > auth.date.getTime() + auth.expiresSeconds * 1000) {
    throw new S3Error(403, 'AccessDenied', 'Request has expired');
  }
  const credential = await credentialOf(context.directory, auth.accessKeyId);
  const bare = withoutPresignParams(request);
  if (!(await isPresignedValid(bare, auth, credential.secretAccessKey))) throw signatureMismatch();
  const date = new Date();
  const headers = { ...bare.headers, 'x-amz-date': amzDate(date), 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' };
  const signedHeaders = ['host', 'x-amz-content-sha256', 'x-amz-date'];
  return { accountId: credential.accountId, upstream: { request: { ...bare, headers }, signedHeaders, date } };
}

/** Checks the SigV4 signature of a request (Authorization header or presigned URL) against the caller's S3 key. */
export async function authenticate(request: S3Request, directory: S3Directory, region: string): Promise<S3Caller> {
  const presigned = request.headers['authorization'] === undefined ? parsePresigned(request.query) : null;
  if (presigned) return authenticatePresigned(request, presigned, { directory, region });
  const auth = parseAuthorization(request.headers['authorization']);
  if (!auth) throw new S3Error(403, 'AccessDenied', 'Sign requests with AWS Signature Version 4');
  const date = parseAmzDate(request.headers['x-amz-date']);
  if (!date) throw new S3Error(403, 'AccessDenied', 'x-amz-date is missing or malformed');
  if (Math.abs(Date.now() - date.getTime()) > MAX_CLOCK_SKEW_MS) {
    throw new S3Error(403, 'RequestTimeTooSkewed', 'The difference between the request time and now is too large');
  }
  assertScope(auth, region);
  const credential = await credentialOf(directory, auth.accessKeyId);
  if (!(await isSignatureValid(request, auth, credential.secretAccessKey, date))) throw signatureMismatch();
  if (request.headers['x-amz-content-sha256'] === 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD') {
    throw new S3Error(501, 'NotImplemented', 'Signed chunked payloads are not served; send UNSIGNED-PAYLOAD or a hash');
  }
  return { accountId: credential.accountId, upstream: { request, signedHeaders: auth.signedHeaders, date } };
}

function owned(volumes: readonly S3Volume[], bucket: string): S3Volume {
  const volume = volumes.find((v) => v.id === bucket);
  if (!volume) throw new S3Error(403, 'AccessDenied', `${bucket} is not a network volume of this key's account here`);
  return volume;
}

/** Only object operations and reads (and DeleteObjects) reach a bucket: volumes are managed by the management API. */
function assertBucketOperation(request: S3Request): void {
  if (request.key !== null) return;
  const method = request.method;
  if (method === 'GET' || method === 'HEAD' || (method === 'POST' && 'delete' in request.query)) return;
  throw new S3Error(403, 'AccessDenied', 'Network volumes are created, resized and deleted through the management API');
}

/** The volume a request addresses, after checking that it, and any copy source, belong to the caller. */
export function authorize(request: S3Request, volumes: readonly S3Volume[]): S3Volume | null {
  if (request.bucket === null) {
    if (request.method !== 'GET') throw new S3Error(405, 'MethodNotAllowed', 'Only ListBuckets is served at /');
    return null;
  }
  const volume = owned(volumes, request.bucket);
  assertBucketOperation(request);
  const source = copySourceOf(request);
  if (source) owned(volumes, source.bucket);
  return volume;
}

async function incomingBytes(request: S3Request, volumesDir: string): Promise<number> {
  const source = copySourceOf(request);
  if (source) {
    const file = path.join(volumesDir, source.bucket, path.normalize(`/${source.key}`));
    return (await stat(file).catch(() => ({ size: 0 }))).size;
  }
  const declared = request.headers['x-amz-decoded-content-length'] ?? request.headers['content-length'];
  if (declared === undefined) throw new S3Error(411, 'MissingContentLength', 'Send Content-Length with the object');
  return Number(declared);
}

/** A data write (PutObject, UploadPart and their copies) fits the volume, or fails with EntityTooLarge. */
export async function reserveWrite(
  request: S3Request,
  volume: S3Volume,
  context: { volumesDir: string; reservations: WriteReservations },
): Promise<() => void> {
  if (request.method !== 'PUT' || request.key === null) return () => undefined;
  const incoming = await incomingBytes(request, context.volumesDir);
  const used = (await directoryBytes(path.join(context.volumesDir, volume.id))) + context.reservations.of(volume.id);
  if (used + incoming > volume.sizeBytes) {
    throw new S3Error(
      400,
      'EntityTooLarge',
      `Writing ${incoming} bytes would exceed the volume's size (${used} of ${volume.sizeBytes} bytes used)`,
    );
  }
  return context.reservations.reserve(volume.id, incoming);
}
