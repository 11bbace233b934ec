import { z } from 'zod';

/** Body of `POST /v1/s3keys` and `POST /v2/account/s3-keys`. */
export const s3KeyCreateInput = z.strictObject({ name: z.string().trim().min(1).max(191) });
/** Parsed body of an S3 key creation. */
export type S3KeyCreateInput = z.infer<typeof s3KeyCreateInput>;

/** An S3 access key as every API returns it: never the secret. */
export const s3KeyDto = z.object({
  id: z.string(),
  name: z.string(),
  accessKeyId: z.string().describe('The access key id S3 clients sign with (SigV4 Credential).'),
  createdAt: z.iso.datetime(),
});
/** An S3 access key as every API returns it. */
export type S3KeyDto = z.infer<typeof s3KeyDto>;

/** Answer of an S3 key creation: the only time the secret access key is shown. */
export const s3KeyCreatedDto = s3KeyDto.extend({
  secretAccessKey: z.string().describe('The secret access key; shown once.'),
});
/** Answer of an S3 key creation. */
export type S3KeyCreatedDto = z.infer<typeof s3KeyCreatedDto>;
