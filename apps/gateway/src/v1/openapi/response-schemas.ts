import {
  API_KEY_SCOPES,
  type ApiKeyCreatedDto,
  type ApiKeyDto,
  type ContainerRegistryAuthDto,
} from '@runplane/contracts';
import { z } from 'zod';

// These responses are TypeScript interfaces in @runplane/contracts; the schemas below describe them for the
// OpenAPI document, and `satisfies` keeps each one in step with its interface.

/** An API key as the API returns it. */
export const apiKeyResponse = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string().describe('The first characters of the key, to recognise it.'),
  scope: z.enum(API_KEY_SCOPES),
  allowedEndpointIds: z.array(z.string()),
  disabled: z.boolean(),
  lastUsedAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
}) satisfies z.ZodType<ApiKeyDto>;

/** `POST /v1/apikeys`: the only response that carries the secret. */
export const apiKeyCreatedResponse = apiKeyResponse.extend({
  key: z.string().describe('The secret; shown once.'),
}) satisfies z.ZodType<ApiKeyCreatedDto>;

/** A container registry auth: never the password. */
export const containerRegistryAuthResponse = z.object({
  id: z.string(),
  name: z.string(),
}) satisfies z.ZodType<ContainerRegistryAuthDto>;
