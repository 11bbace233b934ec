import { containerRegistryAuthCreateInput } from '@runplane/contracts';
import { z } from 'zod';
import { listResponseSchema } from '../http/pagination';

/** Body of `POST /v2/registries` (RunPod's CreateRegistryRequest): v1's container registry auth, same rules. */
export const createRegistryRequest = containerRegistryAuthCreateInput;
/** Parsed body of `POST /v2/registries`. */
export type CreateRegistryRequest = z.infer<typeof createRegistryRequest>;

/** Registry credentials as v2 returns them (RunPod's Registry): never the username or password. */
export const registrySchema = z.object({ id: z.string(), name: z.string() });
/** Registry credentials as v2 returns them. */
export type RegistryV2 = z.infer<typeof registrySchema>;

/** `GET /v2/registries`: the caller's registry credentials, a page at a time. */
export const listRegistriesResponse = listResponseSchema('registries', registrySchema);
/** A page of registry credentials. */
export type ListRegistriesResponse = z.infer<typeof listRegistriesResponse>;
