import type { DbClient } from '@runplane/db';

/** A network volume as its usage is billed: its size and when it was created and last resized. */
export interface VolumeSize {
  id: string;
  accountId: string;
  dataCenterId: string;
  size: number;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Network volumes as the scheduler meters them: every volume of every account (metering serves the whole deployment,
 * unlike `NetworkVolumesRepository`, whose every method is scoped to an account).
 */
export class VolumeSizesRepository {
  constructor(private readonly db: DbClient) {}

  all(): Promise<VolumeSize[]> {
    return this.db.networkVolume.findMany({
      select: { id: true, accountId: true, dataCenterId: true, size: true, createdAt: true, updatedAt: true },
    });
  }
}
