import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/** An S3 error the proxy answers itself, before the engine sees the request. */
export class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const escapeXml = (text: string): string =>
  text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c);

/** Writes S3's XML error document (`<Error><Code>...`), closing the connection if the body was not read. */
export function sendS3Error(res: ServerResponse, error: S3Error, resource: string): void {
  const requestId = randomUUID();
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${error.code}</Code><Message>${escapeXml(error.message)}</Message>` +
    `<Resource>${escapeXml(resource)}</Resource><RequestId>${requestId}</RequestId></Error>`;
  res.writeHead(error.status, {
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(body),
    'x-amz-request-id': requestId,
    connection: 'close',
  });
  res.end(body);
}
