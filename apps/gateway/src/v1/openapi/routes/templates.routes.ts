import { templateCreateInput, templateDto, templateQuery, templateUpdateInput } from '@runplane/contracts';
import { empty, json, named, updatePair, type V1Route } from '../route';

const template = named('Template', templateDto);
const tag = 'templates';

/** `/templates`: the caller's templates, plus public / Runplane / endpoint-bound ones on request. */
export const templateRoutes: V1Route[] = [
  {
    method: 'POST',
    path: '/templates',
    operationId: 'CreateTemplate',
    summary: 'Create a template',
    tag,
    status: 200,
    body: named('TemplateCreateInput', templateCreateInput),
    response: json(template),
  },
  {
    method: 'GET',
    path: '/templates',
    operationId: 'ListTemplates',
    summary: 'List templates',
    tag,
    status: 200,
    query: templateQuery,
    response: json(template, true),
  },
  {
    method: 'GET',
    path: '/templates/{templateId}',
    operationId: 'GetTemplate',
    summary: "Get a template (the caller's own or a public one)",
    tag,
    status: 200,
    query: templateQuery,
    response: json(template),
  },
  ...updatePair({
    path: '/templates/{templateId}',
    operationId: 'UpdateTemplate',
    summary: 'Update a template (owner only)',
    tag,
    body: named('TemplateUpdateInput', templateUpdateInput),
    response: json(template),
  }),
  {
    method: 'DELETE',
    path: '/templates/{templateId}',
    operationId: 'DeleteTemplate',
    summary: 'Delete a template (refused while a Pod or endpoint uses it)',
    tag,
    status: 204,
    response: empty,
  },
];
