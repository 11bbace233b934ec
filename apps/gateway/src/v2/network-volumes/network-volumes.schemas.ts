import { resourceName } from '@runplane/contracts';
import { z } from 'zod';
import { listResponseSchema } from '../http/pagination';

/** Storage tiers (RunPod's VolumeType); a volume's is fixed at creation. */
export const VOLUME_TYPES = ['STANDARD', 'HIGH_PERFORMANCE'] as const;
const size = z.number().int().min(10).max(4096);

/** Body of `POST /v2/network-volumes` (RunPod's CreateNetworkVolumeRequest). */
export const createNetworkVolumeRequest = z.strictObject({
  name: resourceName,
  size,
  dataCenter: z.string().trim().min(1).max(64),
  type: z.enum(VOLUME_TYPES).default('STANDARD'),
});
/** Parsed body of `POST /v2/network-volumes`. */
export type CreateNetworkVolumeRequest = z.infer<typeof createNetworkVolumeRequest>;

/** Body of `PATCH /v2/network-volumes/{id}`: rename and/or grow (never shrink); at least one field. */
export const updateNetworkVolumeRequest = z
  .strictObject({ name: resourceName.optional(), size: size.optional() })
  .refine((body) => body.name !== undefined || body.size !== undefined, { error: 'name or size is required' });
/** Parsed body of `PATCH /v2/network-volumes/{id}`. */
export type UpdateNetworkVolumeRequest = z.infer<typeof updateNetworkVolumeRequest>;

/** A network volume as v2 returns it (RunPod's NetworkVolume), over the same row as v1's. */
export const networkVolumeSchema = z.object({
  id: z.string(),
  name: z.string(),
  size: z.number().int(),
  dataCenter: z.string(),
  type: z.enum(VOLUME_TYPES),
});
/** A network volume as v2 returns it. */
export type NetworkVolumeV2 = z.infer<typeof networkVolumeSchema>;

/** `GET /v2/network-volumes`: the caller's volumes, a page at a time. */
export const listNetworkVolumesResponse = listResponseSchema('networkVolumes', networkVolumeSchema);
/** A page of network volumes. */
export type ListNetworkVolumesResponse = z.infer<typeof listNetworkVolumesResponse>;
