import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { ENDPOINT_KEYS, GLOBAL_KEYS } from '@runplane/jobs';

/**
 * Keeps docs/architecture.md true. Its notation (stated at its top): a backticked path is relative to the repository
 * root, `path#Name` names something declared in that file, `path#Name.member` a method or property of it, and `<x>`
 * is a placeholder (the directory before the first placeholder must exist).
 */

const root = path.resolve(__dirname, '../..');
const MAP = 'docs/architecture.md';
const doc = readFileSync(path.join(root, MAP), 'utf8');

/** First segments of the repository paths the map may name. */
const TOP_LEVEL = ['apps', 'libs', 'tools', 'prisma', 'helm', 'deploy', 'docs', 'examples', 'config', 'bench'];
const PATH_SPAN = new RegExp(
  `^((?:${TOP_LEVEL.join('|')})(?:/[^\\s#\`]*)?)(?:#([A-Za-z_$][\\w$]*)(?:\\.([\\w$]+))?)?$`,
);

/** A path the map names, with the declared name and member it points at, if any. */
interface MapReference {
  span: string;
  file: string;
  name?: string;
  member?: string;
}

function backtickSpans(text: string): string[] {
  return [...text.matchAll(/`([^`\n]+)`/g)].map((match) => match[1] ?? '');
}

function referencesIn(text: string): MapReference[] {
  return backtickSpans(text).flatMap((span): MapReference[] => {
    const match = PATH_SPAN.exec(span);
    if (!match) return [];
    const [, file = '', name, member] = match;
    return [{ span, file: file.replace(/\/$/, ''), name, member }];
  });
}

/** The part of a path before its first placeholder segment (`apps/x/<family>/y` → `apps/x`). */
function concretePart(file: string): string {
  const segments = file.split('/');
  const placeholder = segments.findIndex((segment) => segment.includes('<'));
  return placeholder < 0 ? file : segments.slice(0, placeholder).join('/');
}

function escape(text: string): string {
  return text.replace(/[$.*+?^()[\]{}|\\]/g, '\\$&');
}

/** Where `name` is declared at the top level of `source` (class, function, const, interface, type, enum), or -1. */
function declarationOf(source: string, name: string): number {
  const declaration = new RegExp(
    `^(?:export\\s+)?(?:default\\s+)?(?:declare\\s+)?(?:abstract\\s+)?(?:async\\s+)?` +
      `(?:class|function\\*?|const|let|interface|type|enum)\\s+${escape(name)}\\b`,
    'm',
  );
  return declaration.exec(source)?.index ?? -1;
}

/** True when a method, property or object key `member` is declared after `from` (indented, as in a class body). */
function declaresMember(source: string, from: number, member: string): boolean {
  const modifiers = '(?:(?:public|private|protected|readonly|static|async|override|get|set)\\s+)*';
  const declaration = new RegExp(`^[ \\t]+${modifiers}${escape(member)}\\??\\s*[(<:=]`, 'm');
  return declaration.test(source.slice(from));
}

/** What is wrong with one reference, or undefined when it holds. */
function problemOf(reference: MapReference): string | undefined {
  const concrete = concretePart(reference.file);
  const absolute = path.join(root, concrete);
  if (!existsSync(absolute)) return `${reference.span}: ${concrete} does not exist`;
  if (!reference.name) return undefined;
  if (concrete !== reference.file || !statSync(absolute).isFile())
    return `${reference.span}: a name must follow a file`;
  const source = readFileSync(absolute, 'utf8');
  const at = declarationOf(source, reference.name);
  if (at < 0) return `${reference.span}: ${reference.name} is not declared in ${reference.file}`;
  if (reference.member && !declaresMember(source, at, reference.member))
    return `${reference.span}: ${reference.name} has no member ${reference.member}`;
  return undefined;
}

/**
 * Members used bare (`RedisJobEngine.take`): the owner must have been named with its path somewhere in the map, and
 * declare the member in that file. (A root file such as `README.md` is not a member.)
 */
function bareMemberProblems(references: MapReference[]): string[] {
  const files = new Map<string, string>();
  for (const { name, file } of references) if (name && !files.has(name)) files.set(name, file);
  return backtickSpans(doc).flatMap((span) => {
    const [, name = '', member = ''] = /^([A-Z][\w$]*)\.([\w$]+)$/.exec(span) ?? [];
    if (!name || existsSync(path.join(root, span))) return [];
    const file = files.get(name);
    if (!file) return [`${span}: ${name} is never named with its path (path#${name})`];
    const problem = problemOf({ span, file, name, member });
    return problem ? [problem] : [];
  });
}

/** The map's section under `heading` (up to the next `## `). */
function section(heading: string): string {
  const start = doc.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`${MAP} has no section "${heading}"`);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

/** Every app and lib with its `type:` tag, from its package.json. */
function projectTags(): Map<string, string> {
  const tags = new Map<string, string>();
  for (const group of ['apps', 'libs']) {
    for (const entry of readdirSync(path.join(root, group), { withFileTypes: true })) {
      const manifest = path.join(root, group, entry.name, 'package.json');
      if (!entry.isDirectory() || !existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { nx?: { tags?: string[] } };
      tags.set(`${group}/${entry.name}`, pkg.nx?.tags?.find((tag) => tag.startsWith('type:')) ?? 'untagged');
    }
  }
  return tags;
}

/** Rows of a markdown table as cells, for the rows whose first cell is a backticked value. */
function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.split(/(?<!\\)\|/).map((cell) => cell.trim()))
    .map((cells) => cells.slice(1, -1));
}

/** The names in backticks of a section, split into words (`<p>jobs:<ep>:queued` → p, jobs, ep, queued). */
function wordsOf(text: string): Set<string> {
  return new Set(backtickSpans(text).flatMap((span) => span.split(/[^\w-]+/).filter(Boolean)));
}

describe('docs/architecture.md, the repository map', () => {
  const references = referencesIn(doc);

  it('names the code it describes by repository path, often with a declared name', () => {
    expect(references.length).toBeGreaterThan(100);
    expect(references.filter((reference) => reference.name).length).toBeGreaterThan(60);
  });

  it('names only paths that exist, and only names declared in the file it gives', () => {
    const problems = references.map(problemOf).filter((problem): problem is string => problem !== undefined);
    expect(problems).toEqual([]);
  });

  it('uses bare members (`Owner.member`) only of owners it named with a path, and only members they declare', () => {
    expect(bareMemberProblems(references)).toEqual([]);
  });

  it('has one row per app and lib in its directory table, with the tag of its package.json', () => {
    const rows = tableRows(section('Directory table')).map(([dir = '', tag = '']) => [dir.replace(/`/g, ''), tag]);
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(projectTags()));
  });

  it('lists every BullMQ queue of the catalogs', () => {
    const catalogs = path.join(root, 'libs/queue/src/catalogs');
    const names = readdirSync(catalogs).flatMap((file) =>
      [...readFileSync(path.join(catalogs, file), 'utf8').matchAll(/export const \w+_QUEUE = '([^']+)'/g)].map(
        (match) => match[1] ?? '',
      ),
    );
    expect(names.length).toBeGreaterThan(0);
    const listed = tableRows(section('BullMQ queues')).map(([queue = '']) => queue.replace(/`/g, ''));
    expect(listed.sort()).toEqual(names.sort());
  });

  it("lists every key of the job engine's layout among the Redis key families", () => {
    const words = wordsOf(section('Redis key families'));
    const keys = [...Object.values(ENDPOINT_KEYS), ...Object.values(GLOBAL_KEYS)];
    expect(keys.filter((key) => !words.has(key))).toEqual([]);
  });
});
