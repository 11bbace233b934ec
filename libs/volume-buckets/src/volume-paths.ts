import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { S3Error } from './s3-errors';

/**
 * True when `relative` under `volumeDir` resolves inside it: its deepest existing ancestor's real path (symbolic
 * links followed) is the volume's directory or below it.
 */
export async function resolvesInside(volumeDir: string, relative: string): Promise<boolean> {
  const root = await realpath(volumeDir);
  let candidate = path.join(volumeDir, relative);
  for (;;) {
    try {
      const real = await realpath(candidate);
      return real === root || real.startsWith(`${root}${path.sep}`);
    } catch {
      const parent = path.dirname(candidate);
      if (parent === candidate) return false;
      candidate = parent;
    }
  }
}

/**
 * A Pod can put symbolic links in its volume; the engine, which sees every volume, would follow one into another
 * volume. Keys and prefixes that resolve outside their volume are refused.
 */
export async function assertInsideVolume(volumesDir: string, bucket: string, relative: string): Promise<void> {
  if (relative === '') return;
  if (!(await resolvesInside(path.join(volumesDir, bucket), relative))) {
    throw new S3Error(403, 'AccessDenied', 'The key leads out of its volume through a symbolic link');
  }
}
