import { empty, json, named, type V2Route } from '../openapi/route';
import { paginationQuery } from '../http/pagination';
import {
  createEndpointRequest,
  endpointSchema,
  listEndpointsSchema,
  listReleasesSchema,
  listWorkersSchema,
  updateEndpointRequest,
} from './serverless.schemas';

const endpoint = json(named('Endpoint', endpointSchema));
const base = { tag: 'Serverless' } as const;

/** `/v2/serverless/*` as the OpenAPI document lists it. */
export const serverlessRoutes: V2Route[] = [
  {
    ...base,
    method: 'GET',
    path: '/v2/serverless',
    operationId: 'listEndpoints',
    summary: 'List serverless endpoints',
    status: 200,
    query: paginationQuery,
    response: json(named('ListEndpointsResponse', listEndpointsSchema)),
  },
  {
    ...base,
    method: 'POST',
    path: '/v2/serverless',
    operationId: 'createEndpoint',
    summary: 'Create a serverless endpoint (type QUEUE, or LOAD_BALANCER: HTTP proxied to its workers)',
    status: 201,
    body: named('CreateEndpointRequest', createEndpointRequest),
    response: endpoint,
  },
  {
    ...base,
    method: 'GET',
    path: '/v2/serverless/{id}',
    operationId: 'getEndpoint',
    summary: 'Get a serverless endpoint',
    status: 200,
    response: endpoint,
  },
  {
    ...base,
    method: 'PATCH',
    path: '/v2/serverless/{id}',
    operationId: 'updateEndpoint',
    summary: 'Update a serverless endpoint (container changes make a new release)',
    status: 200,
    body: named('UpdateEndpointRequest', updateEndpointRequest),
    response: endpoint,
  },
  {
    ...base,
    method: 'DELETE',
    path: '/v2/serverless/{id}',
    operationId: 'deleteEndpoint',
    summary: 'Delete a serverless endpoint, its workers, jobs and bound template',
    status: 204,
    response: empty,
  },
  {
    ...base,
    method: 'GET',
    path: '/v2/serverless/{id}/workers',
    operationId: 'listEndpointWorkers',
    summary: 'List the active workers, with why an unhealthy or throttled one does not serve (reason)',
    status: 200,
    response: json(named('ListEndpointWorkersResponse', listWorkersSchema)),
  },
  {
    ...base,
    method: 'GET',
    path: '/v2/serverless/{id}/releases',
    operationId: 'listEndpointReleases',
    summary: 'List endpoint releases (one per version, with what changed)',
    status: 200,
    response: json(named('ListEndpointReleasesResponse', listReleasesSchema)),
  },
];
