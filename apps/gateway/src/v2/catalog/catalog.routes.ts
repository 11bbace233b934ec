import { json, named, type V2Route } from '../openapi/route';
import {
  catalogTemplateListSchema,
  cpuListSchema,
  cpuQuery,
  cpuTypeSchema,
  dataCenterListQuery,
  dataCenterListSchema,
  dataCenterQuery,
  dataCenterSchema,
  gpuListSchema,
  gpuQuery,
  gpuTypeSchema,
  templateCatalogQuery,
} from './catalog.schemas';

const route = (fields: Omit<V2Route, 'method' | 'tag' | 'status'>): V2Route => ({
  method: 'GET',
  tag: 'Catalog',
  status: 200,
  ...fields,
});

/** `/v2/catalog/*` as the OpenAPI document lists it. */
export const catalogRoutes: V2Route[] = [
  route({
    path: '/v2/catalog/gpus',
    operationId: 'listGpuTypes',
    summary: 'List GPU types (availability from free capacity with include=AVAILABILITY&product=...)',
    query: gpuQuery,
    response: json(named('ListGpuTypesResponse', gpuListSchema)),
  }),
  route({
    path: '/v2/catalog/gpus/{id}',
    operationId: 'getGpuType',
    summary: 'Get a GPU type',
    query: gpuQuery,
    response: json(named('GpuType', gpuTypeSchema)),
  }),
  route({
    path: '/v2/catalog/cpus',
    operationId: 'listCpuTypes',
    summary: 'List CPU types',
    query: cpuQuery,
    response: json(named('ListCpuTypesResponse', cpuListSchema)),
  }),
  route({
    path: '/v2/catalog/cpus/{id}',
    operationId: 'getCpuType',
    summary: 'Get a CPU type',
    query: cpuQuery,
    response: json(named('CpuType', cpuTypeSchema)),
  }),
  route({
    path: '/v2/catalog/datacenters',
    operationId: 'listDataCenters',
    summary: 'List data centers',
    query: dataCenterListQuery,
    response: json(named('ListDataCentersResponse', dataCenterListSchema)),
  }),
  route({
    path: '/v2/catalog/datacenters/{id}',
    operationId: 'getDataCenter',
    summary: 'Get a data center',
    query: dataCenterQuery,
    response: json(named('DataCenter', dataCenterSchema)),
  }),
  route({
    path: '/v2/catalog/templates',
    operationId: 'listPublicTemplates',
    summary: 'List public templates (official: the catalog file; community: shared by accounts)',
    query: templateCatalogQuery,
    response: json(named('ListPublicTemplatesResponse', catalogTemplateListSchema)),
  }),
];
