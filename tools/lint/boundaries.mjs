// Module boundaries for Runplane, generated from each project's package.json `nx.tags` (the source of truth).
// ESLint replaces a rule's options when two config objects match one file, so every file gets exactly one
// generated `no-restricted-imports` entry listing everything its project may not import.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Each technology may be imported by one lib only; everything else goes through that lib's API. */
export const TECHNOLOGY_OWNERS = [
  {
    owner: 'libs/db',
    group: ['@prisma/*', '.prisma', '.prisma/*', 'pg', 'pg/*'],
    regex: '(^|/)generated(/|$)',
    what: 'Prisma, pg and the generated client',
  },
  { owner: 'libs/queue', group: ['bullmq', 'bullmq/*', 'ioredis', 'ioredis/*'], what: 'bullmq and ioredis' },
  {
    owner: 'libs/kube',
    group: ['@kubernetes/client-node', '@kubernetes/client-node/*'],
    what: '@kubernetes/client-node',
  },
  {
    owner: 'libs/http',
    group: ['fastify', 'fastify/*', '@fastify/*', '@nestjs/platform-fastify', '@nestjs/platform-fastify/*'],
    what: "Fastify and Nest's Fastify platform",
  },
  { owner: 'libs/http', group: ['@nestjs/microservices', '@nestjs/microservices/*'], what: '@nestjs/microservices' },
  { owner: 'libs/http', group: ['rate-limiter-flexible', 'rate-limiter-flexible/*'], what: 'rate-limiter-flexible' },
  { owner: 'libs/http', group: ['http-proxy-3', 'http-proxy-3/*'], what: 'http-proxy-3 (the reverse proxy)' },
  { owner: 'apps/gateway', group: ['graphql', 'graphql/*'], what: "graphql-js (the gateway's legacy GraphQL API)" },
  {
    owner: 'libs/volume-buckets',
    group: ['@smithy/*'],
    what: 'the SigV4 signer (@smithy/signature-v4) of the S3 endpoint',
  },
  {
    owner: 'libs/observability',
    group: ['@opentelemetry/*', 'prom-client', 'prom-client/*'],
    what: 'OpenTelemetry and prom-client',
  },
];

/** Globs of test code, which alone may import @runplane/testing. */
export const TEST_GLOBS = [
  '**/*.spec.ts',
  '**/*.test.ts',
  '**/test/**/*.ts',
  '**/__tests__/**/*.ts',
  '**/__fixtures__/**/*.ts',
];

/** Read every app and lib with its package name and `type:*` tag. */
export function readProjects(workspaceRoot) {
  const projects = [];
  for (const group of ['apps', 'libs']) {
    const dir = path.join(workspaceRoot, group);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const manifest = path.join(dir, entry.name, 'package.json');
      if (!entry.isDirectory() || !existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
      const tags = pkg.nx?.tags ?? [];
      const type = tags.find((tag) => tag.startsWith('type:'))?.slice('type:'.length) ?? 'untagged';
      projects.push({ root: `${group}/${entry.name}`, name: pkg.name, type, tags });
    }
  }
  return projects;
}

function namesOf(projects, predicate) {
  return projects.filter(predicate).map((p) => p.name);
}

function restrict(names, message) {
  return names.length > 0 ? [{ group: names, message }] : [];
}

function technologyPatterns(root) {
  return TECHNOLOGY_OWNERS.filter((t) => t.owner !== root).flatMap((t) => [
    { group: t.group, message: `${t.what} may only be imported in ${t.owner}; use its API.` },
    ...(t.regex ? [{ regex: t.regex, message: `${t.what} may only be imported in ${t.owner}; use its API.` }] : []),
  ]);
}

const DEEP_IMPORT = {
  regex: '^@runplane/[^/]+/.+',
  message: 'Import another project only through its package entry (@runplane/x), never a deep path.',
};

function layerPatterns(project, projects) {
  const apps = namesOf(projects, (p) => p.type === 'app' && p.name !== project.name);
  const domains = namesOf(projects, (p) => p.type === 'domain' && p.name !== project.name);
  const platform = namesOf(projects, (p) => p.type === 'platform');
  switch (project.type) {
    case 'app':
      return restrict(apps, 'Apps never import each other; share code through a lib.');
    case 'platform':
      return [
        ...restrict(apps, 'Libs never import apps.'),
        ...restrict(domains, 'Platform libs never import domain libs.'),
      ];
    case 'domain':
      return [
        ...restrict(apps, 'Libs never import apps.'),
        ...restrict(domains, 'Domain libs never import each other; compose them in an app.'),
      ];
    case 'sdk':
      return [
        ...restrict(apps, 'Libs never import apps.'),
        ...restrict([...domains, ...platform], 'The publishable SDK depends on @runplane/contracts only.'),
      ];
    default:
      return restrict(apps, 'Libs never import apps.');
  }
}

function patternsFor(project, projects, isTest) {
  if (project.type === 'contracts') {
    return [{ regex: '^(?!zod(/|$)|\\.)', message: '@runplane/contracts depends on nothing but zod.' }];
  }
  const self = project.root.startsWith('libs/')
    ? restrict([project.name], 'Inside a lib, import its own files relatively, not through its package name.')
    : [];
  const testing =
    isTest || project.type === 'testing' ? [] : restrict(['@runplane/testing'], '@runplane/testing is for tests only.');
  return [...technologyPatterns(project.root), DEEP_IMPORT, ...self, ...testing, ...layerPatterns(project, projects)];
}

function ruleEntry(patterns) {
  return { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] };
}

/** Flat-config objects enforcing module boundaries for every project found under apps/ and libs/, plus tools/. */
export function boundaryConfigs(workspaceRoot) {
  const projects = readProjects(workspaceRoot);
  // Code in a folder that has no package.json yet still owns no technology; later entries refine this.
  const configs = [
    { files: ['apps/**/*.ts', 'libs/**/*.ts'], rules: ruleEntry([...technologyPatterns(''), DEEP_IMPORT]) },
    ...TECHNOLOGY_OWNERS.filter((t) => !projects.some((p) => p.root === t.owner)).map((t) => ({
      files: [`${t.owner}/**/*.ts`],
      rules: ruleEntry([...technologyPatterns(t.owner), DEEP_IMPORT]),
    })),
  ];
  for (const project of projects) {
    const testFiles = TEST_GLOBS.map((glob) => `${project.root}/${glob}`);
    configs.push(
      {
        files: [`${project.root}/**/*.ts`],
        ignores: testFiles,
        rules: ruleEntry(patternsFor(project, projects, false)),
      },
      { files: testFiles, rules: ruleEntry(patternsFor(project, projects, true)) },
    );
  }
  // Tools (platform runner, CLI, bench) may wire apps together and use test helpers, but own no technology.
  configs.push({ files: ['tools/**/*.ts'], rules: ruleEntry([...technologyPatterns('tools'), DEEP_IMPORT]) });
  configs.push({
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    rules: { 'runplane/no-relative-escape': 'error' },
  });
  return configs;
}
