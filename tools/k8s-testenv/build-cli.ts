import { ensureKubeBinaries } from './build';

/**
 * `npm run k8s:build [-- --update-modules]`: builds the Kubernetes test environment's binaries when
 * missing or stale. --update-modules regenerates the Go consumer modules after a version bump.
 */
async function main(): Promise<void> {
  const updateModules = process.argv.includes('--update-modules');
  const started = Date.now();
  const built = await ensureKubeBinaries({ updateModules });
  const seconds = Math.round((Date.now() - started) / 1000);
  process.stdout.write(
    built.length === 0 ? 'Kubernetes test environment is up to date\n' : `built ${built.join(', ')} in ${seconds} s\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
