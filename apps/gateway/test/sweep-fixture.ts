import { createAccountsServices } from '@runplane/accounts';
import { newId } from '@runplane/db';
import { bearer, type GatewayHarness } from './harness';

/** The ids of one account's resources, one of each kind a v1 route takes in its path. */
export interface SweepIds {
  podId: string;
  endpointId: string;
  templateId: string;
  networkVolumeId: string;
  containerRegistryAuthId: string;
  apiKeyId: string;
  s3KeyId: string;
}

/** An account with one resource of each kind and a key of each scope (the RESTRICTED one for its endpoint). */
export interface SweepAccount {
  accountId: string;
  ids: SweepIds;
  keys: { all: string; readOnly: string; restricted: string; restrictedElsewhere: string };
}

/** Ids no account has. */
export function madeUpIds(): SweepIds {
  const id = () => `made-up-${newId()}`;
  return {
    podId: id(),
    endpointId: id(),
    templateId: id(),
    networkVolumeId: id(),
    containerRegistryAuthId: id(),
    apiKeyId: id(),
    s3KeyId: id(),
  };
}

async function created(gw: GatewayHarness, key: string, url: string, payload: object): Promise<string> {
  const res = await gw.inject({ method: 'POST', url, headers: bearer(key), payload });
  if (res.statusCode !== 200 && res.statusCode !== 201) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return (res.json() as { id: string }).id;
}

/** Creates a fresh account through the API, so each route of the sweep acts on resources no other route touched. */
export async function sweepAccount(gw: GatewayHarness): Promise<SweepAccount> {
  const { accountId, secret: all } = await gw.accountWithKey('ALL');
  const name = () => `sweep-${newId()}`;
  const usedTemplate = await created(gw, all, '/v1/templates', { name: name(), imageName: 'runplane/worker:1' });
  const endpointId = await created(gw, all, '/v1/endpoints', {
    name: name(),
    templateId: usedTemplate,
    gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
  });
  const ids: SweepIds = {
    endpointId,
    templateId: await created(gw, all, '/v1/templates', { name: name(), imageName: 'runplane/worker:2' }),
    networkVolumeId: await created(gw, all, '/v1/networkvolumes', { name: name(), size: 10, dataCenterId: 'EU-RO-1' }),
    containerRegistryAuthId: await created(gw, all, '/v1/containerregistryauth', {
      name: name(),
      username: 'u',
      password: 'p',
    }),
    podId: await created(gw, all, '/v1/pods', {
      name: name(),
      imageName: 'runplane/pod:1',
      gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
      dataCenterIds: ['EU-RO-1'],
    }),
    apiKeyId: await created(gw, all, '/v1/apikeys', { name: name() }),
    s3KeyId: await created(gw, all, '/v1/s3keys', { name: name() }),
  };
  const { apiKeys } = createAccountsServices(gw.db);
  const key = async (scope: 'READ_ONLY' | 'RESTRICTED', allowedEndpointIds?: string[]) =>
    (await apiKeys.create(accountId, { name: scope, scope, allowedEndpointIds })).secret;
  const keys = {
    all,
    readOnly: await key('READ_ONLY'),
    restricted: await key('RESTRICTED', [endpointId]),
    restrictedElsewhere: await key('RESTRICTED', [`elsewhere-${newId()}`]),
  };
  return { accountId, ids, keys };
}
