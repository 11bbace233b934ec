import { paginationQuery } from '../http/pagination';
import { empty, json, named, type V2Route } from '../openapi/route';
import { createRegistryRequest, listRegistriesResponse, registrySchema } from './registries.schemas';

const registry = json(named('Registry', registrySchema));
const base = { tag: 'Registries' } as const;

/** `/v2/registries` as the OpenAPI document lists it. */
export const registryRoutes: V2Route[] = [
  {
    ...base,
    method: 'GET',
    path: '/v2/registries',
    operationId: 'listRegistries',
    summary: "List the caller's container registry credentials",
    status: 200,
    query: paginationQuery,
    response: json(named('ListRegistriesResponse', listRegistriesResponse)),
  },
  {
    ...base,
    method: 'POST',
    path: '/v2/registries',
    operationId: 'createRegistry',
    summary: 'Store container registry credentials (write-only)',
    status: 201,
    body: named('CreateRegistryRequest', createRegistryRequest),
    response: registry,
  },
  {
    ...base,
    method: 'GET',
    path: '/v2/registries/{id}',
    operationId: 'getRegistry',
    summary: 'Get container registry credentials (name only)',
    status: 200,
    response: registry,
  },
  {
    ...base,
    method: 'DELETE',
    path: '/v2/registries/{id}',
    operationId: 'deleteRegistry',
    summary: 'Delete container registry credentials (refused while a Pod or template uses them)',
    status: 204,
    response: empty,
  },
];
