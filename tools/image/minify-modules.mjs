/**
 * Minifies the JavaScript of a production `node_modules` in place, for the image (the Dockerfile's `modules`
 * stage; tools/image/assemble.ts runs the same line). V8 keeps the source text of every script a process loads
 * (it compiles functions lazily from it), ~10 MB per idle service: without comments and whitespace, and with
 * every character outside ASCII escaped so that V8 stores each source as a one-byte string, that is about half.
 *
 * Only whitespace and comments go (licence comments stay): no compression, no renamed identifiers, directives
 * such as 'use strict' and a leading `#!` kept. A file is rewritten only if its minified text parses to the same
 * syntax tree as the original (positions, comments and the raw spelling of literals aside), so that the code, and
 * with it what the file exports, is unchanged; otherwise, or if it does not parse, it stays as it is. JSON,
 * native addons, WebAssembly, type declarations and source maps are not touched.
 *
 *   node tools/image/minify-modules.mjs <node_modules directory>
 *
 * `@swc/core` (a development dependency) is resolved from this script's location, so the image copies it beside
 * the script for this step only.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const { minifySync, parseSync } = require('@swc/core');

const SCRIPT = /\.(?:c?js|mjs)$/;
// Position, comment and spelling details that minifying changes without changing the program.
const IGNORED_KEYS = new Set(['span', 'ctxt', 'raw', 'interpreter']);

/** Every JavaScript file under `dir` (symbolic links not followed). */
export function* scripts(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* scripts(path);
    else if (entry.isFile() && SCRIPT.test(entry.name) && !entry.name.endsWith('.min.js')) yield path;
  }
}

/** The syntax tree as JSON, without the keys that differ between a source and its minified form. */
function shape(code, isModule) {
  const ast = parseSync(code, { syntax: 'ecmascript', target: 'esnext', isModule, comments: false });
  return JSON.stringify(ast, normalise);
}

const DECLARATIONS = new Set(['VariableDeclaration', 'FunctionDeclaration', 'ClassDeclaration']);

/** A side-effect-free number, `0` or `void 0`, whose value is discarded in a sequence `(0, f)(…)`. */
function isDiscardedNumber(node) {
  return (
    node?.type === 'NumericLiteral' ||
    (node?.type === 'UnaryExpression' && node.operator === 'void' && node.argument?.type === 'NumericLiteral')
  );
}

/**
 * What minifying may change without changing the program: positions, comments, the spelling of literals (not
 * of templates, whose raw text a tag sees; regular expressions differ too and keep their file as it is),
 * redundant parentheses, `new X()` written `new X`, braces around a single statement that declares nothing,
 * and `(void 0, f)` written `(0, f)`.
 */
function normalise(key, value) {
  // A template's raw text is what a tag function (String.raw) sees: it must not change.
  if (IGNORED_KEYS.has(key) && !(key === 'raw' && this?.type === 'TemplateElement')) return undefined;
  let node = value;
  while (node?.type === 'ParenthesisExpression') node = node.expression;
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
  if (Object.keys(node).length === 2 && 'start' in node && 'end' in node) return true;
  if (node.type === 'BlockStatement' && node.stmts.length === 1 && !DECLARATIONS.has(node.stmts[0].type))
    return normalise.call(this, key, node.stmts[0]);
  if (node.type === 'NewExpression' && node.arguments === null) return { ...node, arguments: [] };
  if (node.type === 'SequenceExpression') {
    const last = node.expressions.length - 1;
    const expressions = node.expressions.map((e, i) => (i < last && isDiscardedNumber(e) ? 'discarded' : e));
    return { ...node, expressions };
  }
  return node;
}

function minifyAs(source, isModule) {
  const output = minifySync(source, {
    compress: false,
    mangle: false,
    module: isModule,
    format: { comments: 'some', asciiOnly: true },
  }).code;
  return shape(output, isModule) === shape(source, isModule) ? output : undefined;
}

const packageTypes = new Map();

/** The `type` of the nearest package.json above `dir` ('module' or 'commonjs'). */
function packageType(dir) {
  const known = packageTypes.get(dir);
  if (known !== undefined) return known;
  let type = 'commonjs';
  try {
    type = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).type === 'module' ? 'module' : 'commonjs';
  } catch {
    if (dirname(dir) !== dir) type = packageType(dirname(dir));
  }
  packageTypes.set(dir, type);
  return type;
}

/**
 * How to parse a file, in order of preference: as Node loads it (`.mjs`, `.cjs`, the package's `type`); a
 * CommonJS `.js` that fails as a script (a browser build with `import` lines) is tried as a module. Both ways are
 * tried only when needed: SWC aborts the process when it renders some parse errors (very long lines).
 */
function parseModes(path, source) {
  if (path.endsWith('.mjs')) return [true];
  if (path.endsWith('.cjs')) return [false];
  if (packageType(dirname(path)) === 'module') return [true];
  return /^\s*(?:import|export)\s/m.test(source) ? [true, false] : [false, true];
}

/** The minified text of one file, or undefined to keep it as it is. */
export function minifySource(source, path) {
  for (const isModule of parseModes(path, source)) {
    try {
      const output = minifyAs(source, isModule);
      if (output === undefined) return undefined;
      const hashbang = /^#![^\n]*\n/.exec(source)?.[0] ?? '';
      const result = hashbang !== '' && !output.startsWith('#!') ? hashbang + output : output;
      return result.length < source.length ? result : undefined;
    } catch {
      // Not parseable this way: try the other, else keep the file.
    }
  }
  return undefined;
}

/** Minifies every script under `dir` in place; returns what it did. */
export function minifyTree(dir) {
  const totals = { files: 0, minified: 0, before: 0, after: 0 };
  for (const path of scripts(dir)) {
    totals.files += 1;
    const bytes = readFileSync(path);
    const source = bytes.toString('utf8');
    const size = bytes.length;
    totals.before += size;
    // Not UTF-8 text: leave the bytes alone.
    const output = Buffer.byteLength(source) === size ? minifySource(source, path) : undefined;
    if (output === undefined) {
      totals.after += size;
      continue;
    }
    writeFileSync(path, output);
    totals.minified += 1;
    totals.after += Buffer.byteLength(output);
  }
  return totals;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = process.argv[2];
  if (dir === undefined) {
    process.stderr.write('usage: node minify-modules.mjs <node_modules directory>\n');
    process.exit(2);
  }
  const started = Date.now();
  const totals = minifyTree(dir);
  const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1);
  process.stdout.write(
    `minified ${totals.minified} of ${totals.files} scripts in ${dir}: ${mb(totals.before)} MB -> ` +
      `${mb(totals.after)} MB in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
  );
}
