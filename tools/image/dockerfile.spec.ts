import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ENGINE_VERSION } from '@runplane/volume-buckets';
import { logicalLines, nodeFlagsOf, parseDockerfile } from './dockerfile';

const REPO_ROOT = resolve(__dirname, '..', '..');
/** The flags deploy/README.md ("Memory") and the chart's nodeFlags document. */
const IMAGE_NODE_FLAGS = ['--optimize-for-size', '--no-maglev', '--bytecode-old-age=2', '--flush-baseline-code'];

describe('parseDockerfile', () => {
  it('reads stages, WORKDIR, COPY (with --from), RUN and ENV, joining continued lines and skipping comments', () => {
    const stages = parseDockerfile(
      [
        'ARG BASE=node:24',
        'FROM ${BASE} AS deps',
        'WORKDIR /app',
        '# a comment',
        'COPY package.json package-lock.json ./',
        'RUN npm ci \\',
        '  --omit=dev',
        'FROM ${BASE}',
        'ENV A=1 \\',
        '    B=two',
        'WORKDIR /app',
        'COPY --from=deps /app/node_modules ./node_modules',
      ].join('\n'),
    );
    expect(stages).toEqual([
      {
        name: 'deps',
        workdir: '/app',
        copies: [{ from: undefined, sources: ['package.json', 'package-lock.json'], destination: './' }],
        runs: ['npm ci --omit=dev'],
        env: {},
      },
      {
        name: '1',
        workdir: '/app',
        copies: [{ from: 'deps', sources: ['/app/node_modules'], destination: './node_modules' }],
        runs: [],
        env: { A: '1', B: 'two' },
      },
    ]);
  });

  it('refuses what the image test could not mirror: COPY flags other than --from, ENV without =', () => {
    expect(() => parseDockerfile('FROM x\nCOPY --chown=1:1 a b')).toThrow('unsupported COPY flag --chown=1:1');
    expect(() => parseDockerfile('FROM x\nENV A 1')).toThrow('ENV must use the key=value form');
  });
});

describe("the repository's Dockerfile", () => {
  const text = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const finalStage = logicalLines(text).slice(logicalLines(text).findLastIndex((line) => line.startsWith('FROM ')));

  it('keeps the Helm chart contract: WORKDIR /app, uid 10001, tini as entrypoint, production mode, writes to /tmp', () => {
    const image = parseDockerfile(text).at(-1);
    expect(image).toMatchObject({
      workdir: '/app',
      env: { NODE_ENV: 'production', HOME: '/tmp', TMPDIR: '/tmp', HOST: '0.0.0.0' },
    });
    expect(finalStage).toEqual(expect.arrayContaining(['USER 10001:10001', 'ENTRYPOINT ["/usr/bin/tini", "--"]']));
    expect(image?.cmd).toEqual(['node', ...IMAGE_NODE_FLAGS, 'dist/apps/gateway/main.js']);
  });

  it("gives every service V8's memory-saving flags through the command, where Node accepts them", () => {
    expect(nodeFlagsOf(parseDockerfile(text).at(-1)?.cmd)).toEqual(IMAGE_NODE_FLAGS);
    expect(() => nodeFlagsOf(['dist/apps/gateway/main.js'])).toThrow("the image's CMD must be");
    expect(() => parseDockerfile('FROM x\nCMD node main.js')).toThrow('CMD must use the exec form');
  });

  it('installs production dependencies only, without install scripts, from the lockfile', () => {
    const runs = parseDockerfile(text).flatMap((stage) => stage.runs);
    expect(runs).toContain('npm ci --omit=dev --ignore-scripts --workspaces=false --no-audit --no-fund');
  });

  it('builds the S3 engine from its pinned Go module into bin/versitygw, where volume-s3 looks for it', () => {
    const stages = parseDockerfile(text);
    const engine = stages.find((stage) => stage.name === 's3-engine');
    expect(engine?.copies).toEqual([{ from: undefined, sources: ['tools/volume-s3-engine/go'], destination: './' }]);
    expect(engine?.runs).toHaveLength(1);
    expect(engine?.runs[0]).toContain(`-X main.Version=${ENGINE_VERSION} `);
    expect(engine?.runs[0]).toContain('-o bin/versitygw github.com/versity/versitygw/cmd/versitygw');
    const image = stages.at(-1);
    expect(image?.copies).toContainEqual({
      from: 's3-engine',
      sources: ['/engine/bin/versitygw'],
      destination: './bin/versitygw',
    });
    expect(image?.env['VOLUME_S3_ENGINE_BIN']).toBe('bin/versitygw');
  });

  it('ships those dependencies minified, without the minifier', () => {
    const stages = parseDockerfile(text);
    const modules = stages.find((stage) => stage.name === 'modules');
    expect(modules?.copies[0]).toEqual({ from: 'deps', sources: ['/app/node_modules'], destination: './node_modules' });
    expect(modules?.runs).toEqual(['node minify/minify-modules.mjs node_modules && rm -rf minify']);
    expect(stages.at(-1)?.copies).toContainEqual({
      from: 'modules',
      sources: ['/app/node_modules'],
      destination: './node_modules',
    });
  });
});
