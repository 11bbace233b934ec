import { existsSync, mkdirSync, readFileSync, symlinkSync, truncateSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  type S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { type S3Fixture, startS3Fixture } from './s3-fixture';

const MIB = 1024 * 1024;

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof S3ServiceException) return error.name;
    throw error;
  }
  return 'no error';
}

describe('the S3 endpoint of a data center (versitygw behind a SigV4-checking proxy)', () => {
  let s3: S3Fixture;
  let owner: { accountId: string; volumeId: string; client: S3Client };

  beforeAll(async () => {
    s3 = await startS3Fixture('volume-s3');
    const accountId = await s3.account();
    const volumeId = await s3.volume(accountId);
    owner = { accountId, volumeId, client: s3.client(await s3.key(accountId)) };
  });
  afterAll(() => s3.close());

  it("lists the caller's volumes in this data center as buckets, and no one else's", async () => {
    const elsewhere = await s3.volume(owner.accountId, { dataCenterId: 'US-TX-3' });
    await s3.volume(await s3.account());
    const { Buckets } = await owner.client.send(new ListBucketsCommand({}));
    expect(Buckets?.map((bucket) => bucket.Name)).toEqual([owner.volumeId]);
    expect(Buckets?.map((bucket) => bucket.Name)).not.toContain(elsewhere);
  });

  it('uploads with multipart, lists with prefixes and pages, reads a range, copies and deletes', async () => {
    const Bucket = owner.volumeId;
    const { client } = owner;
    const first = Buffer.alloc(5 * MIB, 'a');
    const second = Buffer.from('the end');
    const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket, Key: 'models/big.bin' }));
    const part1 = await client.send(
      new UploadPartCommand({ Bucket, Key: 'models/big.bin', UploadId, PartNumber: 1, Body: first }),
    );
    const part2 = await client.send(
      new UploadPartCommand({ Bucket, Key: 'models/big.bin', UploadId, PartNumber: 2, Body: second }),
    );
    const parts = await client.send(new ListPartsCommand({ Bucket, Key: 'models/big.bin', UploadId }));
    expect(parts.Parts?.map((part) => [part.PartNumber, part.Size])).toEqual([
      [1, first.length],
      [2, second.length],
    ]);
    await client.send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key: 'models/big.bin',
        UploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: part1.ETag },
            { PartNumber: 2, ETag: part2.ETag },
          ],
        },
      }),
    );
    await client.send(
      new PutObjectCommand({ Bucket, Key: 'models/small.txt', Body: 'hello volume', ContentType: 'text/plain' }),
    );
    await client.send(new PutObjectCommand({ Bucket, Key: 'notes.txt', Body: 'top level' }));

    const head = await client.send(new HeadObjectCommand({ Bucket, Key: 'models/big.bin' }));
    expect(head.ContentLength).toBe(first.length + second.length);
    const range = await client.send(
      new GetObjectCommand({ Bucket, Key: 'models/big.bin', Range: `bytes=${first.length - 2}-${first.length + 2}` }),
    );
    expect(await range.Body?.transformToString()).toBe('aathe');
    expect(range.ContentRange).toBe(`bytes ${first.length - 2}-${first.length + 2}/${first.length + second.length}`);

    const page1 = await client.send(new ListObjectsV2Command({ Bucket, Prefix: 'models/', MaxKeys: 1 }));
    expect(page1.Contents?.map((o) => o.Key)).toEqual(['models/big.bin']);
    expect(page1.IsTruncated).toBe(true);
    const page2 = await client.send(
      new ListObjectsV2Command({
        Bucket,
        Prefix: 'models/',
        MaxKeys: 1,
        ContinuationToken: page1.NextContinuationToken,
      }),
    );
    expect(page2.Contents?.map((o) => o.Key)).toEqual(['models/small.txt']);
    const top = await client.send(new ListObjectsV2Command({ Bucket, Delimiter: '/' }));
    expect(top.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['models/']);
    expect(top.Contents?.map((o) => o.Key)).toEqual(['notes.txt']);

    await client.send(
      new CopyObjectCommand({ Bucket, Key: 'copy/small.txt', CopySource: `${Bucket}/models/small.txt` }),
    );
    const copied = await client.send(new GetObjectCommand({ Bucket, Key: 'copy/small.txt' }));
    expect(await copied.Body?.transformToString()).toBe('hello volume');

    await client.send(new DeleteObjectCommand({ Bucket, Key: 'notes.txt' }));
    const deleted = await client.send(
      new DeleteObjectsCommand({
        Bucket,
        Delete: { Objects: [{ Key: 'copy/small.txt' }, { Key: 'models/small.txt' }] },
      }),
    );
    expect(deleted.Deleted?.map((d) => d.Key).sort()).toEqual(['copy/small.txt', 'models/small.txt']);
    const left = await client.send(new ListObjectsV2Command({ Bucket }));
    expect(left.Contents?.map((o) => o.Key)).toEqual(['models/big.bin']);
  });

  it('stores a streamed body (aws-chunked with a checksum trailer) as the file it was', async () => {
    const Bucket = owner.volumeId;
    const body = Buffer.alloc(3 * MIB + 17, 'z');
    await owner.client.send(
      new PutObjectCommand({
        Bucket,
        Key: 'streamed.bin',
        Body: Readable.from([body.subarray(0, MIB), body.subarray(MIB)]),
        ContentLength: body.length,
      }),
    );
    expect(readFileSync(path.join(s3.volumesDir, Bucket, 'streamed.bin')).equals(body)).toBe(true);
  });

  it('serves presigned URLs for reads and writes until they expire', async () => {
    const Bucket = owner.volumeId;
    const put = await getSignedUrl(owner.client, new PutObjectCommand({ Bucket, Key: 'shared/in.txt' }), {
      expiresIn: 60,
    });
    const uploaded = await fetch(put, { method: 'PUT', body: 'uploaded with a link' });
    expect(uploaded.status).toBe(200);
    const get = await getSignedUrl(owner.client, new GetObjectCommand({ Bucket, Key: 'shared/in.txt' }), {
      expiresIn: 60,
    });
    const read = await fetch(get, { headers: { range: 'bytes=0-7' } });
    expect([read.status, await read.text()]).toEqual([206, 'uploaded']);

    const tampered = await fetch(
      get.replace(/X-Amz-Signature=([0-9a-f])/, (_m, c: string) => `X-Amz-Signature=${c === 'a' ? 'b' : 'a'}`),
    );
    expect([tampered.status, await tampered.text()]).toEqual([403, expect.stringContaining('SignatureDoesNotMatch')]);
    const past = new Date(Date.now() - 120_000);
    const expired = await getSignedUrl(owner.client, new GetObjectCommand({ Bucket, Key: 'shared/in.txt' }), {
      expiresIn: 60,
      signingDate: past,
    });
    const late = await fetch(expired);
    expect([late.status, await late.text()]).toEqual([403, expect.stringContaining('Request has expired')]);
    const stranger = s3.client(await s3.key(await s3.account()));
    const theirs = await getSignedUrl(stranger, new GetObjectCommand({ Bucket, Key: 'shared/in.txt' }), {
      expiresIn: 60,
    });
    const refused = await fetch(theirs);
    expect([refused.status, await refused.text()]).toEqual([403, expect.stringContaining('AccessDenied')]);
  });

  it('aborts a multipart upload', async () => {
    const Bucket = owner.volumeId;
    const { UploadId } = await owner.client.send(new CreateMultipartUploadCommand({ Bucket, Key: 'abandoned.bin' }));
    await owner.client.send(
      new UploadPartCommand({ Bucket, Key: 'abandoned.bin', UploadId, PartNumber: 1, Body: 'x' }),
    );
    await owner.client.send(new AbortMultipartUploadCommand({ Bucket, Key: 'abandoned.bin', UploadId }));
    const uploads = await owner.client.send(new ListMultipartUploadsCommand({ Bucket }));
    expect(uploads.Uploads ?? []).toEqual([]);
    expect(await codeOf(owner.client.send(new HeadObjectCommand({ Bucket, Key: 'abandoned.bin' })))).toBe('NotFound');
  });

  it("keeps objects as plain files in the volume's directory, where a Pod on the volume finds them", async () => {
    const Bucket = owner.volumeId;
    await owner.client.send(new PutObjectCommand({ Bucket, Key: 'datasets/train.csv', Body: 'a,b\n1,2\n' }));
    expect(readFileSync(path.join(s3.volumesDir, Bucket, 'datasets', 'train.csv'), 'utf8')).toBe('a,b\n1,2\n');
  });

  it("refuses another account's key on the volume, and on a copy from it", async () => {
    const strangerAccount = await s3.account();
    const stranger = s3.client(await s3.key(strangerAccount));
    const theirs = await s3.volume(strangerAccount);
    expect(await codeOf(stranger.send(new ListObjectsV2Command({ Bucket: owner.volumeId })))).toBe('AccessDenied');
    expect(await codeOf(stranger.send(new PutObjectCommand({ Bucket: owner.volumeId, Key: 'x', Body: 'x' })))).toBe(
      'AccessDenied',
    );
    const copy = new CopyObjectCommand({
      Bucket: theirs,
      Key: 'stolen',
      CopySource: `${owner.volumeId}/models/big.bin`,
    });
    expect(await codeOf(stranger.send(copy))).toBe('AccessDenied');
  });

  it("refuses keys that a Pod's symbolic link leads into another volume", async () => {
    const strangerAccount = await s3.account();
    const theirs = await s3.volume(strangerAccount);
    const stranger = s3.client(await s3.key(strangerAccount));
    await stranger.send(new PutObjectCommand({ Bucket: theirs, Key: 'secret.txt', Body: 'theirs' }));
    // What a Pod on the owner's volume could do: links that lead out of its directory.
    const mine = path.join(s3.volumesDir, owner.volumeId);
    mkdirSync(mine, { recursive: true });
    symlinkSync(path.join('..', theirs), path.join(mine, 'escape'));
    symlinkSync(path.join('..', theirs, 'secret.txt'), path.join(mine, 'stolen.txt'));
    const Bucket = owner.volumeId;
    const client = owner.client;
    expect(await codeOf(client.send(new GetObjectCommand({ Bucket, Key: 'escape/secret.txt' })))).toBe('AccessDenied');
    expect(await codeOf(client.send(new GetObjectCommand({ Bucket, Key: 'stolen.txt' })))).toBe('AccessDenied');
    expect(await codeOf(client.send(new PutObjectCommand({ Bucket, Key: 'escape/planted.txt', Body: 'x' })))).toBe(
      'AccessDenied',
    );
    expect(await codeOf(client.send(new ListObjectsV2Command({ Bucket, Prefix: 'escape/' })))).toBe('AccessDenied');
    const listed = await client.send(new ListObjectsV2Command({ Bucket }));
    expect(listed.Contents?.map((o) => o.Key).filter((key) => key?.startsWith('escape/'))).toEqual([]);
    const copy = new CopyObjectCommand({ Bucket, Key: 'copied.txt', CopySource: `${Bucket}/stolen.txt` });
    expect(await codeOf(client.send(copy))).toBe('AccessDenied');
    expect(existsSync(path.join(s3.volumesDir, theirs, 'planted.txt'))).toBe(false);
    unlinkSync(path.join(mine, 'escape'));
    unlinkSync(path.join(mine, 'stolen.txt'));
  });

  it('refuses a wrong signature, an unknown key and a revoked key', async () => {
    const key = await s3.key(owner.accountId);
    const wrong = s3.client({ accessKeyId: key.accessKeyId, secretAccessKey: `${key.secretAccessKey.slice(1)}x` });
    expect(await codeOf(wrong.send(new ListBucketsCommand({})))).toBe('SignatureDoesNotMatch');
    const unknown = s3.client({ accessKeyId: 'RPS3AAAAAAAAAAAAAAAA', secretAccessKey: key.secretAccessKey });
    expect(await codeOf(unknown.send(new ListBucketsCommand({})))).toBe('InvalidAccessKeyId');
    const revocable = s3.client(key);
    expect(await codeOf(revocable.send(new ListBucketsCommand({})))).toBe('no error');
    await s3.db.s3Key.delete({ where: { id: key.id } });
    expect(await codeOf(revocable.send(new ListBucketsCommand({})))).toBe('InvalidAccessKeyId');
  });

  it("refuses a write beyond the volume's size with EntityTooLarge", async () => {
    const accountId = await s3.account();
    const volumeId = await s3.volume(accountId, { sizeGb: 1 });
    const client = s3.client(await s3.key(accountId));
    await client.send(new PutObjectCommand({ Bucket: volumeId, Key: 'first.bin', Body: Buffer.alloc(MIB) }));
    // A Pod filled the volume up to 1.5 MiB short of its 1 GiB (a sparse file: its size counts, no disk is used).
    truncateSync(path.join(s3.volumesDir, volumeId, 'first.bin'), 1024 * MIB - MIB - MIB / 2);
    const tooBig = new PutObjectCommand({ Bucket: volumeId, Key: 'second.bin', Body: Buffer.alloc(2 * MIB) });
    expect(await codeOf(client.send(tooBig))).toBe('EntityTooLarge');
    await client.send(new PutObjectCommand({ Bucket: volumeId, Key: 'third.bin', Body: Buffer.alloc(MIB) }));
    const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: volumeId, Key: 'parts.bin' }));
    const part = new UploadPartCommand({
      Bucket: volumeId,
      Key: 'parts.bin',
      UploadId,
      PartNumber: 1,
      Body: Buffer.alloc(MIB),
    });
    expect(await codeOf(client.send(part))).toBe('EntityTooLarge');
  });
});
