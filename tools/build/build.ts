/**
 * `npm run build`: compiles the five apps, the libs they use, the Prisma client and the operator tools to
 * plain CommonJS under dist/, so production starts each service with `node dist/apps/<app>/main.js` and
 * compiles no TypeScript at run time (the SWC loader alone costs every process tens of MB).
 *
 * SWC transpiles file by file with decorator metadata on (Nest's injection reads it), exactly as the
 * development loader and jest do. `@runplane/<lib>` imports are rewritten to relative paths into dist/libs,
 * so the output needs no path aliases and no workspace links in node_modules.
 */
import { transformFile, type Options } from '@swc/core';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const REPO_ROOT = resolve(__dirname, '..', '..');

/** One source folder and where its compiled files go. */
export interface BuildRoot {
  src: string;
  out: string;
}

/** Operator tools shipped beside the apps (the CLI uses the platform's Postgres resolution). */
const TOOLS = ['migrate', 'cli', 'platform'];
/** Libraries that exist only for tests and never run in production. */
const TEST_ONLY_LIBS = ['testing'];

/** apps/<app>/src -> dist/apps/<app>, libs/<lib>/src -> dist/libs/<lib>, tools/<tool> -> dist/tools/<tool>. */
export function buildRoots(root: string = REPO_ROOT): BuildRoot[] {
  const folders = (parent: string): string[] =>
    readdirSync(join(root, parent), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  return [
    ...folders('apps').map((app) => ({ src: join('apps', app, 'src'), out: join('apps', app) })),
    ...folders('libs')
      .filter((lib) => !TEST_ONLY_LIBS.includes(lib))
      .map((lib) => ({ src: join('libs', lib, 'src'), out: join('libs', lib) })),
    ...TOOLS.map((tool) => ({ src: join('tools', tool), out: join('tools', tool) })),
  ];
}

/** Production sources: TypeScript files that are neither tests nor test helpers. */
export function isProductionSource(relativePath: string): boolean {
  if (!relativePath.endsWith('.ts') || relativePath.endsWith('.d.ts')) return false;
  if (/\.(spec|test)\.ts$/.test(relativePath)) return false;
  return !relativePath.split(sep).some((part) => part === 'test' || part === '__tests__');
}

function listSources(dir: string, base: string = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listSources(path, base);
    return isProductionSource(relative(base, path)) ? [relative(base, path)] : [];
  });
}

const SWC_OPTIONS: Options = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2023',
    // Nest and error names are read from class names at run time.
    keepClassNames: true,
    // Comments and whitespace go and non-ASCII characters are escaped (a one-byte string): V8 keeps the source of
    // every module it loads, ~0.4 MB less per service. Names and statements stay; a stack trace gives line 1 and a
    // column, which the source map beside each file turns into the TypeScript position (node --enable-source-maps).
    minify: { compress: false, mangle: false, format: { comments: false, asciiOnly: true } },
  },
  minify: true,
  module: { type: 'commonjs', strict: true },
  sourceMaps: true,
  swcrc: false,
  configFile: false,
};

/** Rewrites `require("@runplane/<lib>")` in the compiled file at `outFile` to a relative path into dist/libs. */
export function rewriteAliases(code: string, outFile: string, distDir: string): string {
  return code.replace(/require\((["'])@runplane\/([a-z-]+)\1\)/g, (_match, _quote: string, lib: string) => {
    let target = relative(dirname(outFile), join(distDir, 'libs', lib, 'index.js'))
      .split(sep)
      .join('/');
    if (!target.startsWith('.')) target = `./${target}`;
    return `require(${JSON.stringify(target)})`;
  });
}

/** Compiles one TypeScript file to `outFile` (and its source map), its `@runplane/<lib>` imports pointing into `distDir`. */
export async function compileFile(srcFile: string, outFile: string, distDir: string): Promise<void> {
  const output = await transformFile(srcFile, { ...SWC_OPTIONS, filename: srcFile, outputPath: outFile });
  mkdirSync(dirname(outFile), { recursive: true });
  const mapName = `${outFile.split(sep).pop() ?? ''}.map`;
  writeFileSync(outFile, `${rewriteAliases(output.code, outFile, distDir)}\n//# sourceMappingURL=${mapName}\n`);
  if (output.map !== undefined) writeFileSync(`${outFile}.map`, output.map);
}

/** Compiles every production source under the repository into `distDir` (emptied first); returns the file count. */
export async function build(root: string = REPO_ROOT, distDir: string = join(root, 'dist')): Promise<number> {
  rmSync(distDir, { recursive: true, force: true });
  const jobs = buildRoots(root).flatMap(({ src, out }) =>
    listSources(join(root, src)).map((file) => ({
      srcFile: join(root, src, file),
      outFile: join(distDir, out, file.replace(/\.ts$/, '.js')),
    })),
  );
  // A few files at a time: SWC runs off the main thread, and the machine is shared.
  const concurrency = 8;
  for (let i = 0; i < jobs.length; i += concurrency) {
    await Promise.all(jobs.slice(i, i + concurrency).map((job) => compileFile(job.srcFile, job.outFile, distDir)));
  }
  return jobs.length;
}

if (require.main === module) {
  const started = Date.now();
  build().then(
    (count) => process.stdout.write(`compiled ${count} files to dist/ in ${Date.now() - started} ms\n`),
    (err: unknown) => {
      process.stderr.write(`build failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
