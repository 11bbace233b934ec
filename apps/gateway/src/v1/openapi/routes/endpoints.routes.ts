import { endpointCreateInput, endpointDto, endpointQuery, endpointUpdateInput } from '@runplane/contracts';
import { empty, json, named, updatePair, type V1Route } from '../route';

const endpoint = named('Endpoint', endpointDto);
const tag = 'endpoints';

/** `/endpoints`: serverless endpoints bound to a template, with autoscaling settings. */
export const endpointRoutes: V1Route[] = [
  {
    method: 'POST',
    path: '/endpoints',
    operationId: 'CreateEndpoint',
    summary: 'Create a serverless endpoint from a template',
    tag,
    status: 200,
    body: named('EndpointCreateInput', endpointCreateInput),
    response: json(endpoint),
  },
  {
    method: 'GET',
    path: '/endpoints',
    operationId: 'ListEndpoints',
    summary: 'List endpoints',
    tag,
    status: 200,
    query: endpointQuery,
    response: json(endpoint, true),
  },
  {
    method: 'GET',
    path: '/endpoints/{endpointId}',
    operationId: 'GetEndpoint',
    summary: 'Get an endpoint',
    tag,
    status: 200,
    query: endpointQuery,
    response: json(endpoint),
  },
  ...updatePair({
    path: '/endpoints/{endpointId}',
    operationId: 'UpdateEndpoint',
    summary: 'Update an endpoint (a change of template or env bumps its version)',
    tag,
    body: named('EndpointUpdateInput', endpointUpdateInput),
    response: json(endpoint),
  }),
  {
    method: 'DELETE',
    path: '/endpoints/{endpointId}',
    operationId: 'DeleteEndpoint',
    summary: 'Delete an endpoint and its configuration',
    tag,
    status: 204,
    response: empty,
  },
];
