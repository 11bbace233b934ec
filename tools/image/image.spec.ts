import { createPrismaClient, type DatabaseClient, withDatabaseAdmin } from '@runplane/db';
import { createRedis } from '@runplane/queue';
import { ENGINE_VERSION } from '@runplane/volume-buckets';
import {
  cleanupRedisPrefix,
  createTestDatabase,
  getFreePorts,
  pollUntil,
  type TestDatabase,
  testRedisPrefix,
} from '@runplane/testing';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import runpodSdk from 'runpod-sdk';
import { createEchoEndpoint } from '../platform/test/runner-harness';
import { type AssembledImage, assembleImage } from './assemble';
import { echoWorkerDir, treeSnapshot, runInImage, type ImageRun } from './test/image-harness';
import {
  isReady,
  type PlatformSettings,
  REPO_ROOT,
  type RunningService,
  SERVICES,
  type ServiceName,
  startService,
  stopService,
} from './launch';

const REDIS_URL = 'redis://127.0.0.1:6379';
// The image runs as 10001:10001 on a read-only root filesystem. As root, the test runs every process as that
// user over a tree owned by root (so it cannot write there); otherwise the tree is made read-only.
const IMAGE_USER = process.getuid?.() === 0 ? { uid: 10001, gid: 10001 } : undefined;

function npmRunBuild(): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('npm', ['run', '-s', 'build'], { cwd: REPO_ROOT, env: process.env }, (err, stdout, stderr) =>
      err === null ? resolve() : reject(new Error(`npm run build failed: ${err.message}\n${stdout}\n${stderr}`)),
    );
  });
}

function chmodTree(dir: string, mode: 'a-w' | 'u+w'): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('chmod', ['-R', mode, dir], (err) => (err === null ? resolve() : reject(err)));
  });
}

describe('the container image (its file tree, assembled from the Dockerfile, run with NODE_ENV=production)', () => {
  let image: AssembledImage;
  let database: TestDatabase;
  let db: DatabaseClient;
  let redisPrefix: string;
  let schedulerStateDir: string;
  let workerDir: string;
  let before: Map<string, string>;
  const services: RunningService[] = [];
  let settings: PlatformSettings;

  const inImage = (args: string[], env: Record<string, string> = {}): Promise<ImageRun> =>
    runInImage(image, args, { DATABASE_URL: database.url, ...env }, IMAGE_USER);

  beforeAll(async () => {
    await npmRunBuild();
    image = await assembleImage();
    if (IMAGE_USER === undefined) await chmodTree(image.appDir, 'a-w');
    before = treeSnapshot(image.appDir);
    // A fresh, empty database: the image's migrate tool must build the schema itself.
    database = await createTestDatabase('image');
    await withDatabaseAdmin(database.url, async (admin) => {
      await admin.drop(database.name);
      await admin.create(database.name);
    });
    db = createPrismaClient(database.url, { poolSize: 2 });
    redisPrefix = testRedisPrefix('image');
    schedulerStateDir = mkdtempSync(join(tmpdir(), 'runplane-image-scheduler-'));
    if (IMAGE_USER !== undefined) chownSync(schedulerStateDir, IMAGE_USER.uid, IMAGE_USER.gid);
    workerDir = await echoWorkerDir(image, IMAGE_USER);
  }, 1_200_000);

  afterAll(async () => {
    await Promise.all(services.map((service) => stopService(service)));
    await db?.$disconnect();
    await database?.drop();
    if (IMAGE_USER === undefined && image !== undefined) await chmodTree(image.appDir, 'u+w');
    for (const dir of [schedulerStateDir, workerDir])
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    const redis = createRedis(REDIS_URL);
    await cleanupRedisPrefix(redis, redisPrefix);
    await redis.quit();
  });

  it('migrate applies every migration and seeds the catalog, exits 0, changes nothing when run again and honours RUNPLANE_CATALOG_FILE', async () => {
    const first = await inImage(['dist/tools/migrate/main.js']);
    expect(first).toMatchObject({ code: 0 });
    expect(first.stdout).toContain('migrations applied');
    const migrations = readdirSync(join(image.appDir, 'prisma', 'migrations'), { withFileTypes: true }).filter((e) =>
      e.isDirectory(),
    );
    const applied = await db.$queryRaw<
      Array<{ migration_name: string }>
    >`SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL`;
    expect(applied.map((row) => row.migration_name).sort()).toEqual(migrations.map((e) => e.name).sort());
    const gpuTypes = await db.gpuType.count();
    expect(gpuTypes).toBeGreaterThan(0);
    expect(await db.gpuType.findUnique({ where: { id: 'NVIDIA GH200 480GB' } })).toBeNull();

    const again = await inImage(['dist/tools/migrate/main.js']);
    expect(again).toMatchObject({ code: 0 });
    expect(await db.$queryRaw<unknown[]>`SELECT 1 FROM _prisma_migrations`).toHaveLength(migrations.length);
    expect(await db.gpuType.count()).toBe(gpuTypes);

    const withOverrides = await inImage(['dist/tools/migrate/main.js'], {
      RUNPLANE_CATALOG_FILE: 'config/catalog.example.json',
    });
    expect(withOverrides).toMatchObject({ code: 0 });
    expect(withOverrides.stdout).toContain('catalog seeded with overrides from config/catalog.example.json');
    expect(await db.gpuType.findUnique({ where: { id: 'NVIDIA GH200 480GB' } })).toMatchObject({
      displayName: 'GH200',
    });
  }, 300_000);

  it('migrate exits 1 naming the variable when DATABASE_URL is missing', async () => {
    const run = await runInImage(image, ['dist/tools/migrate/main.js'], {}, IMAGE_USER);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('DATABASE_URL is required');
  });

  it('ships the production dependencies minified: shorter, ASCII only, exporting the same names', async () => {
    const exportsOf = async (dir: string, name: string): Promise<string> => {
      const script = 'console.log(JSON.stringify(Object.keys(require(process.argv[1])).sort()))';
      return new Promise((resolve, reject) => {
        execFile(process.execPath, ['-e', script, join(dir, 'node_modules', name)], (err, stdout) =>
          err === null ? resolve(stdout) : reject(err),
        );
      });
    };
    const worker = join('node_modules', 'bullmq', 'dist', 'cjs', 'classes', 'worker.js');
    const shipped = readFileSync(join(image.appDir, worker), 'utf8');
    expect(shipped.length).toBeLessThan(readFileSync(join(REPO_ROOT, worker), 'utf8').length * 0.7);
    expect(shipped.startsWith('"use strict";')).toBe(true);
    expect([...shipped].every((char) => char.charCodeAt(0) < 128)).toBe(true);
    for (const name of ['bullmq', 'zod', '@nestjs/core', 'fastify'])
      expect(await exportsOf(image.appDir, name)).toBe(await exportsOf(REPO_ROOT, name));
  });

  async function startPlatform(): Promise<void> {
    const ports = await getFreePorts(SERVICES.length);
    const byName = Object.fromEntries(SERVICES.map((name, i) => [name, ports[i] ?? 0])) as Record<ServiceName, number>;
    settings = {
      mode: 'dist',
      appDir: image.appDir,
      imageEnv: image.env,
      nodeFlags: image.nodeFlags,
      node: image.node,
      databaseUrl: database.url,
      redisUrl: REDIS_URL,
      redisPrefix,
      encryptionKey: randomBytes(32).toString('hex'),
      ports: byName,
      schedulerStateDir,
      workerDir,
      ...(IMAGE_USER === undefined ? {} : { user: IMAGE_USER }),
    };
    for (const name of SERVICES) services.push(startService(name, settings));
    await pollUntil(
      async () => {
        const dead = services.find((service) => service.child.exitCode !== null || service.child.signalCode !== null);
        if (dead !== undefined) throw new Error(`${dead.name} exited while starting:\n${dead.output()}`);
        const ready = await Promise.all(SERVICES.map((name) => isReady(byName[name])));
        return ready.every(Boolean) || undefined;
      },
      { timeoutMs: 180_000, intervalMs: 250, description: 'every service of the image to answer /readyz' },
    );
  }

  it('runs all five services from the tree: a template, an endpoint scaled from 0, jobs run through runpod-sdk', async () => {
    expect(image.env.NODE_ENV).toBe('production');
    const account = await inImage(['dist/tools/cli/runplane.js', 'account', 'create', '--name', 'image-smoke']);
    expect(account).toMatchObject({ code: 0 });
    const key = await inImage([
      'dist/tools/cli/runplane.js',
      'apikey',
      'create',
      '--account',
      account.stdout.trim(),
      '--name',
      'smoke',
    ]);
    expect(key).toMatchObject({ code: 0 });
    const secret = key.stdout.trim().split('\n').pop() ?? '';
    await startPlatform();

    const endpoint = await createEchoEndpoint(settings.ports.gateway, secret, 0, {
      idleTimeout: 2,
      startCmd: ['worker.js'],
    });
    const sdk = runpodSdk(secret, { baseUrl: `http://127.0.0.1:${settings.ports['job-router']}/v2` }).endpoint(
      endpoint.id,
    );
    if (!sdk) throw new Error('runpod-sdk returned no endpoint');
    const accepted = await Promise.all(['one', 'two', 'three'].map((text) => sdk.run({ input: { text } })));
    const results = await Promise.all(
      accepted.map(({ id }) =>
        pollUntil(
          async () => {
            const status = (await sdk.status(id)) as unknown as { status: string; output?: { echo: { text: string } } };
            return status.status === 'IN_QUEUE' || status.status === 'IN_PROGRESS' ? undefined : status;
          },
          { timeoutMs: 120_000, intervalMs: 250, description: `job ${id} to finish on a worker the scheduler started` },
        ),
      ),
    );
    expect(results.map((result) => result.status)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
    expect(results.map((result) => result.output?.echo.text)).toEqual(['one', 'two', 'three']);

    // Idle past idleTimeout: the scheduler scales the endpoint back to 0.
    await pollUntil(
      async () => {
        const health = (await sdk.health()) as unknown as { workers: Record<string, number> };
        return Object.values(health.workers).every((count) => count === 0) || undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, description: 'the idle worker to be scaled down' },
    );
  }, 600_000);

  it("runs volume-s3 from the tree with the image's S3 engine (bin/versitygw, the pinned version)", async () => {
    const engine = await new Promise<string>((resolve, reject) =>
      execFile(join(image.appDir, 'bin', 'versitygw'), ['--version'], (err, stdout) =>
        err === null ? resolve(stdout) : reject(err),
      ),
    );
    expect(engine).toContain(`Version  : ${ENGINE_VERSION}`);
    const dir = mkdtempSync(join(tmpdir(), 'runplane-image-s3-'));
    if (IMAGE_USER !== undefined) chownSync(dir, IMAGE_USER.uid, IMAGE_USER.gid);
    const [port = 0] = await getFreePorts(1);
    const env = {
      PATH: [dirname(image.node), '/usr/bin', '/bin'].join(':'),
      ...image.env,
      DATABASE_URL: database.url,
      RUNPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      VOLUME_S3_VOLUMES_DIR: join(dir, 'volumes'),
      VOLUME_S3_METADATA_DIR: join(dir, 'metadata'),
      VOLUME_S3_HOST: '127.0.0.1',
      VOLUME_S3_PORT: String(port),
    };
    // Without VOLUME_S3_ENGINE_OPTIONAL a missing engine stops it at start: ready means it found and started one.
    const child = spawn(image.node, [...image.nodeFlags, 'dist/apps/volume-s3/main.js'], {
      cwd: image.appDir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(IMAGE_USER ?? {}),
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => void (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString('utf8')));
    try {
      await pollUntil(
        async () => {
          if (child.exitCode !== null) throw new Error(`volume-s3 exited ${child.exitCode}: ${output}`);
          const ready = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null);
          return ready?.status === 200 || undefined;
        },
        { timeoutMs: 60_000, intervalMs: 250, description: 'volume-s3 from the image to be ready' },
      );
      const unsigned = await fetch(`http://127.0.0.1:${port}/`);
      expect([unsigned.status, await unsigned.text()]).toEqual([403, expect.stringContaining('AccessDenied')]);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('every service runs as the image user and stops on SIGTERM, and nothing was written into the tree', async () => {
    expect(services).toHaveLength(SERVICES.length);
    const uids = services.map(
      (service) => /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${service.child.pid}/status`, 'utf8'))?.[1],
    );
    expect(uids).toEqual(services.map(() => String(IMAGE_USER?.uid ?? process.getuid?.())));
    const exits = await Promise.all(services.map((service) => stopService(service)));
    // Nest closes the app on SIGTERM, then raises the signal again on itself: the conventional exit for it.
    expect(exits.map((exit) => exit.code === 0 || exit.signal === 'SIGTERM')).toEqual(SERVICES.map(() => true));
    expect(services.map((service) => service.output())).not.toContainEqual(expect.stringMatching(/EACCES|EROFS/));
    expect(treeSnapshot(image.appDir)).toEqual(before);
  }, 120_000);
});
