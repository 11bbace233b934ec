import { paginationQuery } from '../http/pagination';
import { empty, json, named, type V2Route } from '../openapi/route';
import {
  createTemplateRequest,
  listTemplatesResponse,
  templateSchema,
  updateTemplateRequest,
} from './templates.schemas';

const template = json(named('Template', templateSchema));
const base = { tag: 'Templates' } as const;

/** `/v2/templates` as the OpenAPI document lists it. */
export const templateRoutes: V2Route[] = [
  {
    ...base,
    method: 'GET',
    path: '/v2/templates',
    operationId: 'listTemplates',
    summary: "List the caller's templates",
    status: 200,
    query: paginationQuery,
    response: json(named('ListTemplatesResponse', listTemplatesResponse)),
  },
  {
    ...base,
    method: 'POST',
    path: '/v2/templates',
    operationId: 'createTemplate',
    summary: 'Create a template',
    status: 201,
    body: named('CreateTemplateRequest', createTemplateRequest),
    response: template,
  },
  {
    ...base,
    method: 'GET',
    path: '/v2/templates/{id}',
    operationId: 'getTemplate',
    summary: 'Get a template (own, public or platform)',
    status: 200,
    response: template,
  },
  {
    ...base,
    method: 'PATCH',
    path: '/v2/templates/{id}',
    operationId: 'updateTemplate',
    summary: 'Update a template the caller owns',
    status: 200,
    body: named('UpdateTemplateRequest', updateTemplateRequest),
    response: template,
  },
  {
    ...base,
    method: 'DELETE',
    path: '/v2/templates/{id}',
    operationId: 'deleteTemplate',
    summary: 'Delete a template the caller owns (refused while in use)',
    status: 204,
    response: empty,
  },
];
