import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { S3Error } from './s3-errors';
import { filterBucketList } from './s3-proxy';
import { copySourceOf, parseS3Request } from './s3-request';
import { parseAmzDate, parseAuthorization } from './sigv4';

function incoming(method: string, url: string, headers: Record<string, string> = {}): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.method = method;
  req.url = url;
  req.headers = headers;
  return req;
}

describe('parsing S3 requests', () => {
  it('splits a path-style target into bucket, key and the decoded query, keeping the raw path for SigV4', () => {
    const request = parseS3Request(incoming('GET', '/vol1/models/a%20b.bin?list-type=2&prefix=m%2F&x=1&x=2'));
    expect(request).toMatchObject({
      bucket: 'vol1',
      key: 'models/a b.bin',
      path: '/vol1/models/a%20b.bin',
      query: { 'list-type': '2', prefix: 'm/', x: ['1', '2'] },
    });
    expect(parseS3Request(incoming('GET', '/'))).toMatchObject({ bucket: null, key: null });
    expect(parseS3Request(incoming('GET', '/vol1/'))).toMatchObject({ bucket: 'vol1', key: null });
    expect(parseS3Request(incoming('POST', '/vol1?delete'))).toMatchObject({ bucket: 'vol1', query: { delete: '' } });
  });

  it('answers a malformed escape with 400 InvalidURI', () => {
    expect(() => parseS3Request(incoming('GET', '/vol1/%E0%A4%A'))).toThrow(
      expect.objectContaining({ status: 400, code: 'InvalidURI' }) as S3Error,
    );
  });

  it('refuses keys with "." or ".." segments, escaped or not, which could reach another volume', () => {
    const invalid = expect.objectContaining({ status: 400, code: 'InvalidArgument' }) as S3Error;
    expect(() => parseS3Request(incoming('PUT', '/vol1/../vol2/evil'))).toThrow(invalid);
    expect(() => parseS3Request(incoming('GET', '/vol1/a/%2E%2E/%2E%2E/vol2/x'))).toThrow(invalid);
    expect(() => parseS3Request(incoming('GET', '/vol1/./x'))).toThrow(invalid);
    const copy = incoming('PUT', '/vol1/k', { 'x-amz-copy-source': '/vol1/../vol2/secret' });
    expect(() => copySourceOf(parseS3Request(copy))).toThrow(invalid);
    expect(parseS3Request(incoming('GET', '/vol1/a..b/.hidden'))).toMatchObject({ key: 'a..b/.hidden' });
  });

  it('reads the copy source with or without a leading slash and a version', () => {
    const copy = (source: string) =>
      copySourceOf(parseS3Request(incoming('PUT', '/v/k', { 'x-amz-copy-source': source })));
    expect(copy('/vol2/dir/file%201.txt')).toEqual({ bucket: 'vol2', key: 'dir/file 1.txt' });
    expect(copy('vol2/f?versionId=abc')).toEqual({ bucket: 'vol2', key: 'f' });
    expect(copySourceOf(parseS3Request(incoming('PUT', '/v/k')))).toBeNull();
  });
});

describe('SigV4 headers', () => {
  it('parses an Authorization header and refuses anything else', () => {
    const signature = 'a'.repeat(64);
    const header = `AWS4-HMAC-SHA256 Credential=RPS3AAAA/20261124/eu-ro-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=${signature}`;
    expect(parseAuthorization(header)).toEqual({
      accessKeyId: 'RPS3AAAA',
      date: '20261124',
      region: 'eu-ro-1',
      service: 's3',
      signedHeaders: ['host', 'x-amz-date'],
      signature,
    });
    expect(parseAuthorization('Bearer rpl_x')).toBeNull();
    expect(parseAuthorization(undefined)).toBeNull();
    expect(parseAmzDate('20261124T120102Z')).toEqual(new Date('2026-11-24T12:01:02Z'));
    expect(parseAmzDate('2026-11-24')).toBeNull();
  });
});

describe('filterBucketList', () => {
  it("keeps only the caller's volumes and names its account as the owner", () => {
    const xml =
      '<ListAllMyBucketsResult><Owner><ID>rootkey</ID><DisplayName>rootkey</DisplayName></Owner><Buckets>' +
      '<Bucket><Name>mine</Name><CreationDate>2026-11-24T00:00:00Z</CreationDate></Bucket>' +
      '<Bucket><Name>theirs</Name><CreationDate>2026-11-24T00:00:00Z</CreationDate></Bucket>' +
      '<Bucket><Name>.volume-s3</Name><CreationDate>2026-11-24T00:00:00Z</CreationDate></Bucket>' +
      '</Buckets></ListAllMyBucketsResult>';
    const filtered = filterBucketList(xml, new Set(['mine']), 'acc1');
    expect(filtered).toBe(
      '<ListAllMyBucketsResult><Owner><ID>acc1</ID><DisplayName>acc1</DisplayName></Owner><Buckets>' +
        '<Bucket><Name>mine</Name><CreationDate>2026-11-24T00:00:00Z</CreationDate></Bucket>' +
        '</Buckets></ListAllMyBucketsResult>',
    );
  });
});
