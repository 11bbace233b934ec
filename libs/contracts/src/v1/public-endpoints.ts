import { z } from 'zod';

/**
 * A model name: what callers put in `/v2/<name>/run`. Lowercase so that no router or client that folds case can
 * mix two models up; letters, digits, `.`, `_` and `-`, starting and ending with a letter or digit.
 */
export const publicModelName = z
  .string()
  .regex(
    /^[a-z0-9](?:[a-z0-9._-]{0,62}[a-z0-9])?$/,
    'must be 1-64 lowercase letters, digits, ".", "_" or "-", starting and ending with a letter or digit',
  );

/** A free-form JSON object describing what callers send as `input` or get back as `output` (e.g. a JSON Schema). */
const ioDescription = z.record(z.string(), z.unknown());

/** USD per job, up to 6 decimal places; null bills execution time x the worker's price. */
const pricePerRequest = z
  .number()
  .min(0)
  .max(1000)
  .refine((value) => Number(value.toFixed(6)) === value, { message: 'must have at most 6 decimal places' })
  .nullable();

/** `POST /v1/public-endpoints`: publish one of the caller's queue endpoints under a model name. */
export const publicEndpointCreateInput = z
  .object({
    name: publicModelName,
    endpointId: z.string().min(1).max(64),
    description: z.string().max(2000).default(''),
    input: ioDescription.default({}),
    output: ioDescription.default({}),
    pricePerRequest: pricePerRequest.default(null),
  })
  .strict();

/** `PATCH /v1/public-endpoints/{name}`: change what callers see (the name and endpoint stay). */
export const publicEndpointUpdateInput = z
  .object({
    description: z.string().max(2000),
    input: ioDescription,
    output: ioDescription,
    pricePerRequest,
  })
  .partial()
  .strict();

export type PublicEndpointCreateInput = z.infer<typeof publicEndpointCreateInput>;
export type PublicEndpointUpdateInput = z.infer<typeof publicEndpointUpdateInput>;

/** A publication as its owner sees it. */
export const publicEndpointDto = z.object({
  name: z.string(),
  endpointId: z.string(),
  description: z.string(),
  input: ioDescription,
  output: ioDescription,
  pricePerRequest: z.number().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** A public model as every account sees it: nothing of the endpoint behind it. */
export const publicModelDto = z.object({
  name: z.string(),
  description: z.string(),
  input: ioDescription,
  output: ioDescription,
  /** USD per job; null: billed per job from execution time x the worker's price. */
  pricePerRequest: z.number().nullable(),
});

/** `GET /v2/public-endpoints`: every public model of the installation, by name. */
export const publicModelList = z.object({ models: z.array(publicModelDto) });

export type PublicEndpointDto = z.infer<typeof publicEndpointDto>;
export type PublicModelDto = z.infer<typeof publicModelDto>;
export type PublicModelList = z.infer<typeof publicModelList>;
