import { s3KeyDto } from '@runplane/contracts';
import { z } from 'zod';

/** Answer of `GET /v2/account/s3-keys`. */
export const s3KeyListSchema = z.object({ s3Keys: z.array(s3KeyDto) });
/** Answer of `GET /v2/account/s3-keys`. */
export type S3KeyList = z.infer<typeof s3KeyListSchema>;
