import {
  apiKeyCreatedDto,
  apiKeyCreateInput,
  apiKeyDto,
  apiKeyUpdateInput,
  containerRegistryAuthCreateInput,
  containerRegistryAuthDto,
} from '@runplane/contracts';
import { empty, json, named, updatePair, type V1Route } from '../route';

const apiKey = named('ApiKey', apiKeyDto);
const registryAuth = named('ContainerRegistryAuth', containerRegistryAuthDto);

/** The document itself and the interactive reference (public, like RunPod's). */
export const docsRoutes: V1Route[] = [
  {
    method: 'GET',
    path: '/openapi.json',
    operationId: 'GetOpenAPI',
    summary: 'This OpenAPI 3.1 document',
    tag: 'docs',
    status: 200,
    response: { kind: 'openapi' },
    public: true,
  },
  {
    method: 'GET',
    path: '/docs',
    operationId: 'GetDocs',
    summary: 'Interactive API reference',
    tag: 'docs',
    status: 200,
    response: { kind: 'html' },
    public: true,
  },
];

/** `/containerregistryauth`: create, list, get, delete (RunPod has no update). */
export const registryAuthRoutes: V1Route[] = [
  {
    method: 'POST',
    path: '/containerregistryauth',
    operationId: 'CreateContainerRegistryAuth',
    summary: 'Create a container registry auth',
    tag: 'container registry auths',
    status: 200,
    body: named('ContainerRegistryAuthCreateInput', containerRegistryAuthCreateInput),
    response: json(registryAuth),
  },
  {
    method: 'GET',
    path: '/containerregistryauth',
    operationId: 'ListContainerRegistryAuths',
    summary: 'List container registry auths',
    tag: 'container registry auths',
    status: 200,
    response: json(registryAuth, true),
  },
  {
    method: 'GET',
    path: '/containerregistryauth/{containerRegistryAuthId}',
    operationId: 'GetContainerRegistryAuth',
    summary: 'Get a container registry auth',
    tag: 'container registry auths',
    status: 200,
    response: json(registryAuth),
  },
  {
    method: 'DELETE',
    path: '/containerregistryauth/{containerRegistryAuthId}',
    operationId: 'DeleteContainerRegistryAuth',
    summary: 'Delete a container registry auth (refused while a Pod or template uses it)',
    tag: 'container registry auths',
    status: 204,
    response: empty,
  },
];

/** Runplane's extension: API keys of the calling account. */
export const apiKeyRoutes: V1Route[] = [
  {
    method: 'POST',
    path: '/apikeys',
    operationId: 'CreateApiKey',
    summary: 'Create an API key (the secret is returned once)',
    tag: 'api keys (Runplane)',
    status: 201,
    body: named('ApiKeyCreateInput', apiKeyCreateInput),
    response: json(named('ApiKeyCreated', apiKeyCreatedDto)),
  },
  {
    method: 'GET',
    path: '/apikeys',
    operationId: 'ListApiKeys',
    summary: 'List API keys',
    tag: 'api keys (Runplane)',
    status: 200,
    response: json(apiKey, true),
  },
  {
    method: 'GET',
    path: '/apikeys/{id}',
    operationId: 'GetApiKey',
    summary: 'Get an API key',
    tag: 'api keys (Runplane)',
    status: 200,
    response: json(apiKey),
  },
  ...updatePair({
    path: '/apikeys/{id}',
    operationId: 'UpdateApiKey',
    summary: 'Rename, rescope, disable or enable an API key',
    tag: 'api keys (Runplane)',
    body: named('ApiKeyUpdateInput', apiKeyUpdateInput),
    response: json(apiKey),
  }),
  {
    method: 'DELETE',
    path: '/apikeys/{id}',
    operationId: 'DeleteApiKey',
    summary: 'Delete an API key',
    tag: 'api keys (Runplane)',
    status: 204,
    response: empty,
  },
];
