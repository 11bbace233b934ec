import { paginationQuery } from '../http/pagination';
import { empty, json, named, type V2Route } from '../openapi/route';
import {
  createNetworkVolumeRequest,
  listNetworkVolumesResponse,
  networkVolumeSchema,
  updateNetworkVolumeRequest,
} from './network-volumes.schemas';

const volume = json(named('NetworkVolume', networkVolumeSchema));
const base = { tag: 'Network Volumes' } as const;

/** `/v2/network-volumes` as the OpenAPI document lists it. */
export const networkVolumeRoutes: V2Route[] = [
  {
    ...base,
    method: 'GET',
    path: '/v2/network-volumes',
    operationId: 'listNetworkVolumes',
    summary: "List the caller's network volumes",
    status: 200,
    query: paginationQuery,
    response: json(named('ListNetworkVolumesResponse', listNetworkVolumesResponse)),
  },
  {
    ...base,
    method: 'POST',
    path: '/v2/network-volumes',
    operationId: 'createNetworkVolume',
    summary: 'Create a network volume in a catalog data center',
    status: 201,
    body: named('CreateNetworkVolumeRequest', createNetworkVolumeRequest),
    response: volume,
  },
  {
    ...base,
    method: 'GET',
    path: '/v2/network-volumes/{id}',
    operationId: 'getNetworkVolume',
    summary: 'Get a network volume',
    status: 200,
    response: volume,
  },
  {
    ...base,
    method: 'PATCH',
    path: '/v2/network-volumes/{id}',
    operationId: 'updateNetworkVolume',
    summary: 'Rename or grow a network volume',
    status: 200,
    body: named('UpdateNetworkVolumeRequest', updateNetworkVolumeRequest),
    response: volume,
  },
  {
    ...base,
    method: 'DELETE',
    path: '/v2/network-volumes/{id}',
    operationId: 'deleteNetworkVolume',
    summary: 'Delete a network volume (refused while attached)',
    status: 204,
    response: empty,
  },
];
