import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { build, isProductionSource, rewriteAliases } from './build';

const REPO_ROOT = resolve(__dirname, '..', '..');
const APPS = ['gateway', 'job-router', 'scheduler', 'webhook-dispatcher', 'billing-aggregator'];

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

describe('rewriteAliases', () => {
  it('points @runplane/<lib> at dist/libs/<lib>/index.js relative to the compiled file, and leaves other requires alone', () => {
    const code =
      'const a = require("@runplane/db");\nconst b = require(\'@runplane/http\');\nconst c = require("fastify");';
    expect(rewriteAliases(code, '/d/apps/gateway/main.js', '/d')).toBe(
      'const a = require("../../libs/db/index.js");\nconst b = require("../../libs/http/index.js");\nconst c = require("fastify");',
    );
    expect(rewriteAliases('require("@runplane/db")', '/d/libs/http/app/service.js', '/d')).toBe(
      'require("../../db/index.js")',
    );
  });
});

describe('isProductionSource', () => {
  it('keeps TypeScript sources and leaves out tests, test helpers and declarations', () => {
    expect(['main.ts', 'v1/pods/pods.controller.ts'].map(isProductionSource)).toEqual([true, true]);
    expect(
      ['a.spec.ts', 'a.test.ts', 'test/harness.ts', 'types.d.ts', 'schema-engine.mjs'].map(isProductionSource),
    ).toEqual([false, false, false, false, false]);
  });
});

describe('npm run build', () => {
  let dist: string;
  beforeAll(async () => {
    dist = mkdtempSync(join(tmpdir(), 'runplane-build-'));
    await build(REPO_ROOT, dist);
  }, 120_000);
  afterAll(() => rmSync(dist, { recursive: true, force: true }));

  it('compiles each app to dist/apps/<app>/main.js, the migrate tool and the CLI, with no test file', () => {
    const files = listFiles(dist).map((file) => relative(dist, file));
    expect(APPS.map((app) => files.includes(join('apps', app, 'main.js')))).toEqual(APPS.map(() => true));
    expect(files).toEqual(
      expect.arrayContaining([join('tools', 'migrate', 'main.js'), join('tools', 'cli', 'runplane.js')]),
    );
    expect(files).toEqual(expect.arrayContaining([join('libs', 'db', 'generated', 'prisma', 'client.js')]));
    expect(files.filter((file) => /\.spec\.js$|(^|\/)test\/|libs\/testing\//.test(file))).toEqual([]);
  });

  it('leaves no path alias or TypeScript import behind, and keeps the decorator metadata Nest injects by', () => {
    const code = listFiles(dist)
      .filter((file) => file.endsWith('.js'))
      .map((file) => [relative(dist, file), readFileSync(file, 'utf8')] as const);
    expect(code.filter(([, text]) => /require\(["']@runplane\//.test(text)).map(([file]) => file)).toEqual([]);
    // tools/platform is the development runner (it starts the sources through the loader); services never load it.
    const services = code.filter(([file]) => file.startsWith('apps/') || file.startsWith('libs/'));
    expect(
      services
        .filter(([, text]) => /require\(["'][^"']*\.ts["']\)|@swc-node\/register/.test(text))
        .map(([file]) => file),
    ).toEqual([]);
    const controller = services.find(([file]) => file === join('apps', 'gateway', 'v1', 'pods', 'pods.controller.js'));
    expect(controller?.[1]).toContain('"design:paramtypes"');
  });
});
