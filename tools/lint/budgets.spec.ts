import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ESLint, type Linter } from 'eslint';

const workspaceRoot = path.resolve(__dirname, '../..');
const eslint = new ESLint({ cwd: workspaceRoot });

async function messagesOf(file: string, code: string): Promise<Linter.LintMessage[]> {
  const [result] = await eslint.lintText(code, { filePath: path.resolve(workspaceRoot, file) });
  if (!result) throw new Error(`no lint result for ${file}`);
  const fatal = result.messages.find((m) => m.fatal);
  if (fatal) throw new Error(`parse error in snippet for ${file}: ${fatal.message}`);
  return result.messages;
}

async function failuresOf(rule: string, file: string, code: string): Promise<string[]> {
  return (await messagesOf(file, code)).filter((m) => m.ruleId === rule).map((m) => m.message);
}

/** `count` statements, each one line of code. */
function statements(count: number, indent = ''): string {
  return Array.from({ length: count }, (_, i) => `${indent}console.log(${i});`).join('\n');
}

/** A function whose body is `bodyLines` lines of code: with its header and closing brace, two more. */
function functionOf(bodyLines: number): string {
  return `export function work(): void {\n${statements(bodyLines, '  ')}\n}\n`;
}

function paramsOf(count: number): string {
  return Array.from({ length: count }, (_, i) => `p${i}: number`).join(', ');
}

describe('size budgets (ESLint)', () => {
  describe('a file has at most 300 lines of code', () => {
    const rule = 'max-lines';

    it('fails a 301-line file', async () => {
      const failures = await failuresOf(rule, 'libs/catalog/src/long.ts', `${statements(301)}\n`);
      expect(failures).toEqual([expect.stringContaining('Maximum allowed is 300')]);
    });

    it('passes a 300-line file', async () => {
      expect(await failuresOf(rule, 'libs/catalog/src/long.ts', `${statements(300)}\n`)).toEqual([]);
    });

    it('counts neither blank lines nor comments', async () => {
      const code = `${statements(300)}\n\n\n// why the next line exists\n/* and a block\n comment */\n`;
      expect(await failuresOf(rule, 'libs/catalog/src/long.ts', code)).toEqual([]);
    });

    it('holds for specs too', async () => {
      const failures = await failuresOf(rule, 'libs/catalog/src/long.spec.ts', `${statements(301)}\n`);
      expect(failures).toHaveLength(1);
    });
  });

  describe('a function has at most 40 lines of code', () => {
    const rule = 'max-lines-per-function';

    it('fails a 41-line function', async () => {
      const failures = await failuresOf(rule, 'apps/gateway/src/work.ts', functionOf(39));
      expect(failures).toEqual([expect.stringContaining('Maximum allowed is 40')]);
    });

    it('passes a 40-line function', async () => {
      expect(await failuresOf(rule, 'apps/gateway/src/work.ts', functionOf(38))).toEqual([]);
    });

    it('counts neither blank lines nor comments', async () => {
      const code = functionOf(38).replace('{\n', '{\n  // why\n\n  /* more\n  why */\n');
      expect(await failuresOf(rule, 'apps/gateway/src/work.ts', code)).toEqual([]);
    });

    it('leaves specs to the file budget, since a describe callback spans the file', async () => {
      const spec = `describe('x', () => {\n${statements(60, '  ')}\n});\n`;
      expect(await failuresOf(rule, 'apps/gateway/src/work.spec.ts', spec)).toEqual([]);
      expect(await failuresOf(rule, 'apps/gateway/test/work.e2e.spec.ts', spec)).toEqual([]);
    });

    it('holds for test helpers that are not specs', async () => {
      expect(await failuresOf(rule, 'apps/gateway/test/harness.ts', functionOf(39))).toHaveLength(1);
    });
  });

  describe('a function has at most 4 parameters, a constructor or useFactory at most 5', () => {
    const rule = 'runplane/max-params';
    const file = 'libs/catalog/src/params.ts';

    it.each([
      ['a function declaration', `export function f(${paramsOf(5)}): void {}`],
      ['an arrow function', `export const f = (${paramsOf(5)}): void => {};`],
      ['a method', `export class C {\n  m(${paramsOf(5)}): void {}\n}`],
      ['a function type', `export type F = (${paramsOf(5)}) => void;`],
      ['a constructor', `export class C {\n  constructor(${paramsOf(6)}) {}\n}`],
      ['a useFactory', `export const provider = { useFactory: (${paramsOf(6)}) => 1 };`],
    ])('fails %s over budget', async (_label, code) => {
      expect(await failuresOf(rule, file, code)).toHaveLength(1);
    });

    it.each([
      ['a function declaration', `export function f(${paramsOf(4)}): void {}`],
      ['an arrow function', `export const f = (${paramsOf(4)}): void => {};`],
      ['a function with a typed this', `export function f(this: void, ${paramsOf(4)}): void {}`],
      ['a constructor', `export class C {\n  constructor(${paramsOf(5)}) {}\n}`],
      ['a useFactory', `export const provider = { useFactory: (${paramsOf(5)}) => 1 };`],
    ])('passes %s within budget', async (_label, code) => {
      expect(await failuresOf(rule, file, code)).toEqual([]);
    });

    it('words its message for options objects and for injected dependencies', async () => {
      expect(await failuresOf(rule, file, `export function f(${paramsOf(5)}): void {}`)).toEqual([
        expect.stringContaining('has 5 parameters; the budget is 4'),
      ]);
      expect(await failuresOf(rule, file, `export class C {\n  constructor(${paramsOf(6)}) {}\n}`)).toEqual([
        expect.stringContaining('constructor injects 6 dependencies; the budget is 5'),
      ]);
    });
  });

  describe('no import cycles', () => {
    const rule = 'import-x/no-cycle';
    // The rule follows imports on disk, so every module of a cycle is written to a folder of its own, the linted
    // one included.
    let dir: string;

    beforeAll(() => {
      dir = mkdtempSync(path.join(workspaceRoot, 'tools/lint/.budgets-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    async function cycleFailures(modules: Record<string, string>, linted: string): Promise<string[]> {
      const folder = mkdtempSync(path.join(dir, 'case-'));
      for (const [name, code] of Object.entries(modules)) writeFileSync(path.join(folder, name), code);
      return failuresOf(rule, path.join(folder, linted), modules[linted] ?? '');
    }

    it('fails two modules that import each other', async () => {
      const modules = {
        'a.ts': "import { b } from './b';\nexport const a = 1;\nexport const c = (): number => b();\n",
        'b.ts': "import { a } from './a';\nexport const b = (): number => a + 1;\n",
      };
      expect(await cycleFailures(modules, 'a.ts')).toEqual([expect.stringContaining('cycle')]);
    });

    it('fails a cycle through three modules', async () => {
      const modules = {
        'x.ts': "import { y } from './y';\nexport const x = 1;\nexport const w = y;\n",
        'y.ts': "import { z } from './z';\nexport const y = z;\n",
        'z.ts': "import { x } from './x';\nexport const z = x;\n",
      };
      expect(await cycleFailures(modules, 'x.ts')).toHaveLength(1);
    });

    it('passes modules whose imports go one way', async () => {
      const modules = {
        'root.ts': "import { leaf } from './leaf';\nexport const root = leaf + 1;\n",
        'leaf.ts': 'export const leaf = 1;\n',
      };
      expect(await cycleFailures(modules, 'root.ts')).toEqual([]);
    });
  });
});
