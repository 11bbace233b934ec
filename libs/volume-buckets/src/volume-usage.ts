import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

/** Bytes of the regular files under `dir` (their sizes, as a quota counts them); 0 when it does not exist. */
export async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await directoryBytes(full);
    else if (entry.isFile()) total += (await lstat(full)).size;
  }
  return total;
}

/**
 * Bytes promised to writes still streaming into each volume, so two concurrent writes cannot both pass the size
 * check of one proxy; a write's share is given back when its request ends.
 */
export class WriteReservations {
  private readonly reserved = new Map<string, number>();

  of(volumeId: string): number {
    return this.reserved.get(volumeId) ?? 0;
  }

  /** Reserves `bytes` for a write; call the answer once the write ended. */
  reserve(volumeId: string, bytes: number): () => void {
    this.reserved.set(volumeId, this.of(volumeId) + bytes);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.of(volumeId) - bytes;
      if (left > 0) this.reserved.set(volumeId, left);
      else this.reserved.delete(volumeId);
    };
  }
}
