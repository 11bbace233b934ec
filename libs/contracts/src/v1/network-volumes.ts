import { z } from 'zod';
import { resourceName } from './common';

/** Network volume sizes in GB, as RunPod bounds them. */
const volumeSize = z.number().int().min(0).max(4000);
const name = resourceName;
const dataCenterId = z.string().trim().min(1).max(64);

/** Body of `POST /v1/networkvolumes` (RunPod's NetworkVolumeCreateInput). */
export const networkVolumeCreateInput = z.strictObject({
  name,
  size: volumeSize,
  dataCenterId,
});
/** Parsed body of `POST /v1/networkvolumes`. */
export type NetworkVolumeCreateInput = z.infer<typeof networkVolumeCreateInput>;

/** Body of `PATCH /v1/networkvolumes/{id}`: rename, or grow (never shrink) the volume. */
export const networkVolumeUpdateInput = z.strictObject({
  name: name.optional(),
  size: volumeSize.optional(),
});
/** Parsed body of `PATCH /v1/networkvolumes/{id}`. */
export type NetworkVolumeUpdateInput = z.infer<typeof networkVolumeUpdateInput>;

/** A network volume as the v1 API returns it (RunPod's NetworkVolume). */
export const networkVolumeDto = z.object({
  id: z.string(),
  name: z.string(),
  size: z.number().int(),
  dataCenterId: z.string(),
});
/** A network volume as the v1 API returns it. */
export type NetworkVolumeDto = z.infer<typeof networkVolumeDto>;
