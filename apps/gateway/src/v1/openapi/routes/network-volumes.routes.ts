import { networkVolumeCreateInput, networkVolumeDto, networkVolumeUpdateInput } from '@runplane/contracts';
import { empty, json, named, updatePair, type V1Route } from '../route';

const volume = named('NetworkVolume', networkVolumeDto);
const tag = 'network volumes';

/** `/networkvolumes`: create in a data center, list, get, grow, delete (refused while attached). */
export const networkVolumeRoutes: V1Route[] = [
  {
    method: 'POST',
    path: '/networkvolumes',
    operationId: 'CreateNetworkVolume',
    summary: 'Create a network volume',
    tag,
    status: 200,
    body: named('NetworkVolumeCreateInput', networkVolumeCreateInput),
    response: json(volume),
  },
  {
    method: 'GET',
    path: '/networkvolumes',
    operationId: 'ListNetworkVolumes',
    summary: 'List network volumes',
    tag,
    status: 200,
    response: json(volume, true),
  },
  {
    method: 'GET',
    path: '/networkvolumes/{networkVolumeId}',
    operationId: 'GetNetworkVolume',
    summary: 'Get a network volume',
    tag,
    status: 200,
    response: json(volume),
  },
  ...updatePair({
    path: '/networkvolumes/{networkVolumeId}',
    operationId: 'UpdateNetworkVolume',
    summary: 'Rename or grow a network volume (size may only grow)',
    tag,
    body: named('NetworkVolumeUpdateInput', networkVolumeUpdateInput),
    response: json(volume),
  }),
  {
    method: 'DELETE',
    path: '/networkvolumes/{networkVolumeId}',
    operationId: 'DeleteNetworkVolume',
    summary: 'Delete a network volume (refused while attached)',
    tag,
    status: 204,
    response: empty,
  },
];
