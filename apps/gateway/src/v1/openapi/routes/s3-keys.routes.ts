import { s3KeyCreatedDto, s3KeyCreateInput, s3KeyDto } from '@runplane/contracts';
import { empty, json, named, type V1Route } from '../route';

const tag = 's3 keys (Runplane)';

/** Runplane's extension: S3 access keys of the calling account, for the S3 endpoints of its network volumes. */
export const s3KeyRoutes: V1Route[] = [
  {
    method: 'POST',
    path: '/s3keys',
    operationId: 'CreateS3Key',
    summary: 'Create an S3 access key (the secret access key is returned once)',
    tag,
    status: 201,
    body: named('S3KeyCreateInput', s3KeyCreateInput),
    response: json(named('S3KeyCreated', s3KeyCreatedDto)),
  },
  {
    method: 'GET',
    path: '/s3keys',
    operationId: 'ListS3Keys',
    summary: 'List S3 access keys',
    tag,
    status: 200,
    response: json(named('S3Key', s3KeyDto), true),
  },
  {
    method: 'DELETE',
    path: '/s3keys/{id}',
    operationId: 'RevokeS3Key',
    summary: 'Revoke an S3 access key (the S3 endpoints refuse it from then on)',
    tag,
    status: 204,
    response: empty,
  },
];
