import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const SCRIPT = resolve(__dirname, 'minify-modules.mjs');
const run = promisify(execFile);

const CJS = `#!/usr/bin/env node
'use strict';
/*! keep-me licence */
// a comment that goes
Object.defineProperty(exports, '__esModule', { value: true });
exports.greeting = void 0;
/** Says hello — in two languages. */
function greeting(name) {
  if (name)
    for (const k in { a: 1 }) return 'héllo ' + name + k + ' 😀';
  return (void 0, String)(new Date(0).getTime());
}
exports.greeting = greeting;
exports.pattern = 'é+';
`;

const RAW = 'exports.raw = String.raw`caf\u00e9 ${1}`; // a tag sees the raw text\n';

const ESM = `// an ES module
export const answer = 6 * 7; // the answer
export default function twice(x) {
  return x * 2;
}
`;

function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

describe('minify-modules.mjs (the image minifies its production node_modules)', () => {
  let dir: string;
  const read = (path: string): string => readFileSync(join(dir, path), 'utf8');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'runplane-minify-'));
    writeTree(dir, {
      'cjs-pkg/package.json': '{ "name": "cjs-pkg", "main": "index.js" }\n',
      'cjs-pkg/index.js': CJS,
      'esm-pkg/package.json': '{ "name": "esm-pkg", "type": "module" }\n',
      'esm-pkg/index.js': ESM,
      'esm-pkg/other.mjs': ESM,
      'data/package.json': '{ "name": "data" }\n',
      'data/broken.js': 'this is { not javascript\n',
      'data/raw.js': RAW,
      'data/table.json': '{\n  "a": 1\n}\n',
    });
    await run(process.execPath, [SCRIPT, dir]);
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('removes comments and whitespace, keeps the hashbang, use strict and licence comments, escapes non-ASCII', () => {
    const out = read('cjs-pkg/index.js');
    expect(out.length).toBeLessThan(CJS.length);
    expect(out.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(out).toMatch(/^#![^\n]*\n["']use strict["'];/);
    expect(out).toContain('keep-me licence');
    expect(out).not.toContain('a comment that goes');
    expect(out).not.toContain('Says hello');
    expect([...out].every((c) => c.charCodeAt(0) < 128)).toBe(true);
  });

  it('leaves what the minified file exports and computes unchanged', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const minified = require(join(dir, 'cjs-pkg', 'index.js')) as { greeting: (n: string) => string; pattern: string };
    const original = { exports: {} as { greeting: (n: string) => string; pattern: string } };
    new Function('exports', 'module', CJS.replace(/^#![^\n]*\n/, ''))(original.exports, original);
    expect(Object.keys(minified).sort()).toEqual(Object.keys(original.exports).sort());
    expect(minified.greeting('Zoë')).toBe(original.exports.greeting('Zoë'));
    expect(minified.greeting('')).toBe(original.exports.greeting(''));
    expect(minified.pattern).toBe(original.exports.pattern);
  });

  it('minifies ES modules (by .mjs or the package type) and their exports still load', async () => {
    for (const path of ['esm-pkg/index.js', 'esm-pkg/other.mjs']) {
      expect(read(path)).not.toContain('the answer');
      const loaded = await run(process.execPath, [
        '--input-type=module',
        '-e',
        `import twice, { answer } from ${JSON.stringify(join(dir, path))}; console.log(answer, twice(4));`,
      ]);
      expect(loaded.stdout.trim()).toBe('42 8');
    }
  });

  it('keeps the raw text a template tag sees', () => {
    expect(read('data/raw.js')).not.toContain('a tag sees');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    expect((require(join(dir, 'data', 'raw.js')) as { raw: string }).raw).toBe('caf\u00e9 1');
  });

  it('leaves files that do not parse, and JSON, exactly as they were', () => {
    expect(read('data/broken.js')).toBe('this is { not javascript\n');
    expect(read('data/table.json')).toBe('{\n  "a": 1\n}\n');
  });
});
