import { s3KeyCreatedDto, s3KeyCreateInput } from '@runplane/contracts';
import { empty, json, named, type V2Route } from '../openapi/route';
import { s3KeyListSchema } from './s3-keys.schemas';

const base = { tag: 'Account' } as const;

/** `/v2/account/s3-keys` as the OpenAPI document lists it. */
export const s3KeyRoutes: V2Route[] = [
  {
    ...base,
    method: 'GET',
    path: '/v2/account/s3-keys',
    operationId: 'listS3Keys',
    summary: "List the caller's S3 access keys (for the S3 endpoints of its network volumes)",
    status: 200,
    response: json(named('S3KeyList', s3KeyListSchema)),
  },
  {
    ...base,
    method: 'POST',
    path: '/v2/account/s3-keys',
    operationId: 'createS3Key',
    summary: 'Create an S3 access key (the secret access key is returned once)',
    status: 201,
    body: named('CreateS3KeyRequest', s3KeyCreateInput),
    response: json(named('S3KeyCreated', s3KeyCreatedDto)),
  },
  {
    ...base,
    method: 'DELETE',
    path: '/v2/account/s3-keys/{id}',
    operationId: 'revokeS3Key',
    summary: 'Revoke an S3 access key (the S3 endpoints refuse it from then on)',
    status: 204,
    response: empty,
  },
];
