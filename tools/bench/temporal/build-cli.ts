import { ensurePeerBinaries } from './build';

/** `npm run peer:build`: builds the Temporal CLI and the peer bench client into the cache when missing or stale. */
async function main(): Promise<void> {
  const started = Date.now();
  const built = await ensurePeerBinaries();
  const seconds = Math.round((Date.now() - started) / 1000);
  process.stdout.write(
    built.length > 0 ? `built ${built.join(', ')} in ${seconds} s\n` : 'peer binaries are up to date\n',
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
