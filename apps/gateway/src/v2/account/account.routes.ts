import { json, named, type V2Route } from '../openapi/route';
import { sshKeysSchema, updateSshKeysRequest } from './account.schemas';

const keys = json(named('SshKeys', sshKeysSchema));

/** `/v2/account/*` as the OpenAPI document lists it. */
export const accountRoutes: V2Route[] = [
  {
    method: 'GET',
    path: '/v2/account/ssh-keys',
    operationId: 'getSshKeys',
    summary: 'List registered SSH public keys',
    tag: 'Account',
    status: 200,
    response: keys,
  },
  {
    method: 'PUT',
    path: '/v2/account/ssh-keys',
    operationId: 'updateSshKeys',
    summary: 'Replace registered SSH public keys (new Pods get them in PUBLIC_KEY)',
    tag: 'Account',
    status: 200,
    body: named('UpdateSshKeysRequest', updateSshKeysRequest),
    response: keys,
  },
];
