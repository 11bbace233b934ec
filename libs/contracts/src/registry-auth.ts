import { z } from 'zod';

/** Body of `POST /v1/containerregistryauth` (RunPod's ContainerRegistryAuthCreateInput). */
export const containerRegistryAuthCreateInput = z.strictObject({
  name: z.string().trim().min(1).max(191),
  username: z.string().min(1).max(1024),
  password: z.string().min(1).max(8192),
});
/** Parsed body of `POST /v1/containerregistryauth`. */
export type ContainerRegistryAuthCreateInput = z.infer<typeof containerRegistryAuthCreateInput>;

/**
 * A container registry auth as the v1 API returns it: RunPod's `id` and `name`, and the `username` runpodctl shows. The
 * password is never included.
 */
export const containerRegistryAuthDto = z.object({ id: z.string(), name: z.string(), username: z.string() });
/** A container registry auth as the v1 API returns it. */
export type ContainerRegistryAuthDto = z.infer<typeof containerRegistryAuthDto>;
