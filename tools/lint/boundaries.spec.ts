import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ESLint, type Linter } from 'eslint';

const workspaceRoot = path.resolve(__dirname, '../..');
const RESTRICTED = '@typescript-eslint/no-restricted-imports';
const ESCAPE = 'runplane/no-relative-escape';
const ANY = '@typescript-eslint/no-explicit-any';

const eslint = new ESLint({ cwd: workspaceRoot });

async function lint(file: string, code: string): Promise<Linter.LintMessage[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(workspaceRoot, file) });
  if (!result) throw new Error(`no lint result for ${file}`);
  const fatal = result.messages.filter((m) => m.fatal);
  if (fatal.length > 0) throw new Error(`parse error in snippet for ${file}: ${fatal[0]?.message}`);
  return result.messages;
}

async function ruleIds(file: string, code: string): Promise<(string | null)[]> {
  return (await lint(file, code)).map((m) => m.ruleId);
}

describe('module boundaries (ESLint)', () => {
  it.each([
    [
      'prisma outside db',
      'libs/accounts/src/repo.ts',
      "import { PrismaClient } from '@prisma/client';\nexport { PrismaClient };",
      'only be imported in libs/db',
    ],
    [
      'adapter-pg in an app',
      'apps/gateway/src/db.ts',
      "export { PrismaPg } from '@prisma/adapter-pg';",
      'only be imported in libs/db',
    ],
    ['pg in tools', 'tools/cli/db.ts', "import 'pg';", 'only be imported in libs/db'],
    [
      'generated client outside db',
      'apps/gateway/src/x.ts',
      "export * from '@runplane/db/src/generated/client';",
      'only be imported in libs/db',
    ],
    [
      'bullmq outside queue',
      'apps/job-router/src/jobs.ts',
      "export { Queue } from 'bullmq';",
      'only be imported in libs/queue',
    ],
    [
      'ioredis outside queue',
      'libs/testing/src/redis-extra.ts',
      "import type { Redis } from 'ioredis';\nexport type R = Redis;",
      'only be imported in libs/queue',
    ],
    [
      'k8s outside kube',
      'apps/scheduler/src/kube.ts',
      "export { KubeConfig } from '@kubernetes/client-node';",
      'only be imported in libs/kube',
    ],
    [
      'otel outside observability',
      'libs/http/src/trace.ts',
      "export { trace } from '@opentelemetry/api';",
      'only be imported in libs/observability',
    ],
    [
      'otel sdk in an app',
      'apps/gateway/src/main.ts',
      "export { NodeSDK } from '@opentelemetry/sdk-node';",
      'only be imported in libs/observability',
    ],
    [
      'prom-client outside observability',
      'libs/queue/src/metrics.ts',
      "export { Counter } from 'prom-client';",
      'only be imported in libs/observability',
    ],
    [
      'fastify in an app',
      'apps/job-router/src/x.ts',
      "import type { FastifyReply } from 'fastify';",
      'only be imported in libs/http',
    ],
    [
      "Nest's fastify platform in a test",
      'apps/gateway/test/x.ts',
      "import type { NestFastifyApplication } from '@nestjs/platform-fastify';",
      'only be imported in libs/http',
    ],
    [
      'microservices outside http',
      'apps/scheduler/src/x.ts',
      "export { Transport } from '@nestjs/microservices';",
      'only be imported in libs/http',
    ],
    [
      'rate-limiter-flexible outside http',
      'libs/queue/src/x.ts',
      "export { RateLimiterRedis } from 'rate-limiter-flexible';",
      'only be imported in libs/http',
    ],
    [
      'domain importing domain',
      'libs/accounts/src/x.ts',
      "export { } from '@runplane/catalog';",
      'Domain libs never import each other',
    ],
    [
      'platform importing domain',
      'libs/http/src/x.ts',
      "export * from '@runplane/accounts';",
      'Platform libs never import domain libs',
    ],
    ['lib importing an app', 'libs/db/src/x.ts', "export * from '@runplane/gateway';", 'Libs never import apps'],
    [
      'app importing an app',
      'apps/gateway/src/x.ts',
      "export * from '@runplane/scheduler';",
      'Apps never import each other',
    ],
    [
      'contracts importing a lib',
      'libs/contracts/src/x.ts',
      "export * from '@runplane/config';",
      'depends on nothing but zod',
    ],
    [
      'contracts importing a node builtin',
      'libs/contracts/src/x.ts',
      "import 'node:crypto';",
      'depends on nothing but zod',
    ],
    ['contracts importing a package', 'libs/contracts/src/x.ts', "export * from 'rxjs';", 'depends on nothing but zod'],
    [
      'deep import into a lib',
      'apps/gateway/src/x.ts',
      "export * from '@runplane/accounts/src/api-keys';",
      'never a deep path',
    ],
    [
      'a lib importing itself by name',
      'libs/catalog/src/x.ts',
      "export * from '@runplane/catalog';",
      'import its own files relatively',
    ],
    ['testing helpers in src', 'apps/gateway/src/x.ts', "export * from '@runplane/testing';", 'for tests only'],
    ['testing helpers in lib src', 'libs/db/src/x.ts', "export * from '@runplane/testing';", 'for tests only'],
  ])('reports %s', async (_label, file, code, reason) => {
    const restricted = (await lint(file, code)).filter((m) => m.ruleId === RESTRICTED);
    expect(restricted.map((m) => m.message)).toEqual(expect.arrayContaining([expect.stringContaining(reason)]));
  });

  it.each([
    ['a relative path into another lib', 'libs/catalog/src/x.ts', "export * from '../../accounts/src/index';"],
    [
      'a relative path from an app into a lib',
      'apps/gateway/src/a/x.ts',
      "export * from '../../../../libs/db/src/client';",
    ],
    [
      'a dynamic relative import leaving the app',
      'apps/gateway/src/x.ts',
      "export const m = import('../../scheduler/src/main');",
    ],
  ])('reports %s', async (_label, file, code) => {
    expect(await ruleIds(file, code)).toContain(ESCAPE);
  });

  it('reports explicit any', async () => {
    expect(await ruleIds('libs/config/src/x.ts', 'export const value: any = 1;')).toContain(ANY);
  });

  it.each([
    [
      'prisma inside db',
      'libs/db/src/client.ts',
      "export { PrismaClient } from '@prisma/client';\nexport * from './generated/client';",
    ],
    [
      'bullmq and ioredis inside queue',
      'libs/queue/src/q.ts',
      "export { Queue } from 'bullmq';\nexport { Redis } from 'ioredis';",
    ],
    [
      'fastify, microservices and rate-limiter-flexible inside http',
      'libs/http/src/x.ts',
      "export { Transport } from '@nestjs/microservices';\nexport type { FastifyReply } from 'fastify';\nexport { RateLimiterRedis } from 'rate-limiter-flexible';",
    ],
    ['k8s inside kube', 'libs/kube/src/client.ts', "export { KubeConfig } from '@kubernetes/client-node';"],
    [
      'otel inside observability',
      'libs/observability/src/t.ts',
      "export { trace } from '@opentelemetry/api';\nexport { Counter } from 'prom-client';",
    ],
    [
      'domain importing platform and contracts',
      'libs/accounts/src/x.ts',
      "export * from '@runplane/db';\nexport * from '@runplane/contracts';",
    ],
    [
      'app importing libs',
      'apps/gateway/src/x.ts',
      "export * from '@runplane/accounts';\nexport * from '@runplane/http';",
    ],
    [
      'contracts importing zod and itself',
      'libs/contracts/src/x.ts',
      "export { z } from 'zod';\nexport * from './pods';",
    ],
    ['testing helpers in a spec', 'apps/gateway/src/x.spec.ts', "export * from '@runplane/testing';"],
    ['testing helpers in tools', 'tools/bench/run.ts', "export * from '@runplane/testing';"],
    ['the testing lib importing platform libs', 'libs/testing/src/db.ts', "export * from '@runplane/db';"],
    [
      'relative paths inside a lib',
      'libs/catalog/src/a/b/x.ts',
      "export * from '../../prices';\nexport * from '../c';",
    ],
    [
      'tools importing apps relatively',
      'tools/platform/apps.ts',
      "export const m = import('../../apps/gateway/src/main');",
    ],
  ])('allows %s', async (_label, file, code) => {
    const ids = await ruleIds(file, code);
    expect(ids).not.toContain(RESTRICTED);
    expect(ids).not.toContain(ESCAPE);
  });

  it('gives every app and lib exactly one type tag', () => {
    const allowed = new Set(['type:app', 'type:platform', 'type:domain', 'type:contracts', 'type:testing', 'type:sdk']);
    for (const group of ['apps', 'libs']) {
      for (const name of readdirSync(path.join(workspaceRoot, group))) {
        const manifest = path.join(workspaceRoot, group, name, 'package.json');
        const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; nx?: { tags?: string[] } };
        const types = (pkg.nx?.tags ?? []).filter((tag) => tag.startsWith('type:'));
        expect({ project: pkg.name, types: types.filter((t) => allowed.has(t)) }).toEqual({ project: pkg.name, types });
        expect(types).toHaveLength(1);
        expect(pkg.name).toBe(`@runplane/${name}`);
      }
    }
  });
});
