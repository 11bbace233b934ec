import { publicEndpointCreateInput, publicEndpointDto, publicEndpointUpdateInput } from '@runplane/contracts';
import { empty, json, named, type V1Route } from '../route';

const publication = named('PublicEndpoint', publicEndpointDto);
const tag = 'public endpoints (Runplane)';

/**
 * Runplane's public endpoints: an account publishes one of its queue endpoints under a model name that every account
 * may call on the job API (`/v2/<name>/run`), billed to the caller.
 */
export const publicEndpointRoutes: V1Route[] = [
  {
    method: 'POST',
    path: '/public-endpoints',
    operationId: 'PublishEndpoint',
    summary: 'Publish one of your queue endpoints under a model name, unique in the installation',
    tag,
    status: 201,
    body: named('PublicEndpointCreateInput', publicEndpointCreateInput),
    response: json(publication),
  },
  {
    method: 'GET',
    path: '/public-endpoints',
    operationId: 'ListPublicEndpoints',
    summary: 'Your public endpoints',
    tag,
    status: 200,
    response: json(publication, true),
  },
  {
    method: 'GET',
    path: '/public-endpoints/{name}',
    operationId: 'GetPublicEndpoint',
    summary: 'One of your public endpoints, by model name',
    tag,
    status: 200,
    response: json(publication),
  },
  {
    method: 'PATCH',
    path: '/public-endpoints/{name}',
    operationId: 'UpdatePublicEndpoint',
    summary: 'Change the description, input and output description or per-request price',
    tag,
    status: 200,
    body: named('PublicEndpointUpdateInput', publicEndpointUpdateInput),
    response: json(publication),
  },
  {
    method: 'DELETE',
    path: '/public-endpoints/{name}',
    operationId: 'UnpublishEndpoint',
    summary: 'Unpublish: calls to the name answer 404 and the name is free again',
    tag,
    status: 204,
    response: empty,
  },
];
