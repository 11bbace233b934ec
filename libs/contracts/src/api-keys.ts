import { z } from 'zod';

/** Scopes a Runplane API key can carry. */
export const API_KEY_SCOPES = ['ALL', 'READ_ONLY', 'RESTRICTED'] as const;
/** An API key scope. */
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

const endpointIds = z
  .array(z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'must be an endpoint id'))
  .max(1000);

const name = z.string().trim().min(1).max(191);

/** Body of `POST /v1/apikeys`. */
export const apiKeyCreateInput = z.strictObject({
  name,
  scope: z.enum(API_KEY_SCOPES).default('ALL'),
  allowedEndpointIds: endpointIds.optional(),
});
/** Parsed body of `POST /v1/apikeys`. */
export type ApiKeyCreateInput = z.infer<typeof apiKeyCreateInput>;

/** Body of `PATCH /v1/apikeys/{id}`: rename, change scope or allowed endpoints, disable or enable. */
export const apiKeyUpdateInput = z.strictObject({
  name: name.optional(),
  scope: z.enum(API_KEY_SCOPES).optional(),
  allowedEndpointIds: endpointIds.optional(),
  disabled: z.boolean().optional(),
});
/** Parsed body of `PATCH /v1/apikeys/{id}`. */
export type ApiKeyUpdateInput = z.infer<typeof apiKeyUpdateInput>;

/** An API key as every API returns it: never the secret, never its hash. */
export interface ApiKeyDto {
  id: string;
  name: string;
  prefix: string;
  scope: ApiKeyScope;
  allowedEndpointIds: string[];
  disabled: boolean;
  lastUsedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Response of `POST /v1/apikeys`: the only time the secret is shown. */
export interface ApiKeyCreatedDto extends ApiKeyDto {
  key: string;
}
