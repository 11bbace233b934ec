import { z } from 'zod';

/** Scopes a Runplane API key can carry. */
export const API_KEY_SCOPES = ['ALL', 'READ_ONLY', 'RESTRICTED'] as const;
/** An API key scope. */
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

const endpointIds = z
  .array(
    z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9_-]+$/, 'must be an endpoint id'),
  )
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
export const apiKeyDto = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string().describe('The first characters of the key, to recognise it.'),
  scope: z.enum(API_KEY_SCOPES),
  allowedEndpointIds: z.array(z.string()),
  disabled: z.boolean(),
  lastUsedAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
/** An API key as every API returns it. */
export type ApiKeyDto = z.infer<typeof apiKeyDto>;

/** Response of `POST /v1/apikeys`: the only time the secret is shown. */
export const apiKeyCreatedDto = apiKeyDto.extend({ key: z.string().describe('The secret; shown once.') });
/** Response of `POST /v1/apikeys`. */
export type ApiKeyCreatedDto = z.infer<typeof apiKeyCreatedDto>;
