// Restart and high availability on a real control plane: a restarted scheduler rebuilds its view from the cluster's
// labels (no duplicate, no orphan), and of two scheduler replicas only the Lease holder acts; the other takes over.
import { buildService, type NestFastifyApplication } from '@runplane/http';
import { LABELS, MANAGED_BY } from '@runplane/kube';
import { pollUntil } from '@runplane/testing';
import { schedulerEnvSchema } from '../src/config';
import type { ComputeDriver } from '../src/drivers/compute-driver';
import { createDriver } from '../src/drivers/create-driver';
import { SchedulerModule } from '../src/scheduler.module';
import { H100, type KubePlatform, startKubePlatform } from './kube-platform';

const POOL = 'sched-kube-ha';
const LEASE = 'runplane-scheduler';

/** The driver, counting the calls only a leader makes. */
function counted(driver: ComputeDriver, calls: Map<string, number>): ComputeDriver {
  return new Proxy(driver, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (
        typeof value !== 'function' ||
        property === 'leaderElection' ||
        property === 'onChange' ||
        property === 'close'
      )
        return value;
      return (...args: unknown[]) => {
        calls.set(String(property), (calls.get(String(property)) ?? 0) + 1);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

describe('scheduler restart and leader election on Kubernetes', () => {
  let k: KubePlatform;
  let replicaB: NestFastifyApplication | undefined;

  beforeAll(async () => {
    k = await startKubePlatform(
      POOL,
      [
        {
          name: 'h100',
          dataCenterId: 'EU-RO-1',
          count: 2,
          cpu: '224',
          memory: '2Ti',
          gpu: { type: H100, count: 8, memoryMiB: 81559 },
        },
      ],
      {
        scheduler: { KUBE_LEADER_IDENTITY: 'replica-a', SCHEDULER_LEADER_TTL_MS: '3000' },
      },
    );
  }, 240_000);

  afterAll(async () => {
    if (k) {
      await k.p.db.pod.deleteMany({});
      await pollUntil(async () => (await k.objects()).length === 0 || undefined, {
        timeoutMs: 30_000,
        description: 'the leader to remove every object',
      }).catch(() => undefined);
    }
    await replicaB?.close();
    await k?.close();
  }, 120_000);

  const until = <T>(what: string, check: () => Promise<T | undefined | false>) =>
    pollUntil(check, { timeoutMs: 30_000, intervalMs: 100, description: what });
  const create = async (body: Record<string, unknown>): Promise<string> => {
    const created = await k.p.v1('POST', '/pods', {
      name: 'ha',
      imageName: 'runpod/base:0.6.2',
      gpuTypeIds: [H100],
      gpuCount: 1,
      ...body,
    });
    expect(created.status).toBe(201);
    return (created.body as { id: string }).id;
  };
  const running = (id: string) =>
    until(
      `${id} to run`,
      async () => (await k.p.db.pod.findUniqueOrThrow({ where: { id } })).observedPhase === 'RUNNING',
    );
  const uids = async () =>
    Object.fromEntries(
      (await k.kube.core.listNamespacedPod({ namespace: k.namespace })).items.map((pod) => [
        pod.metadata?.name,
        pod.metadata?.uid,
      ]),
    );

  it('a restarted scheduler adopts every object: no duplicate, and leftovers of deleted Pods are removed', async () => {
    const kept = await create({ ports: ['22/tcp', '8888/http'] });
    const stopped = await create({});
    const orphan = await create({ ports: ['22/tcp'] });
    await Promise.all([kept, stopped, orphan].map(running));
    await k.p.v1('POST', `/pods/${stopped}/stop`);
    await until('the stopped Pod to keep only its volume', async () => {
      const left = (await k.objects()).filter((name) => name.includes(stopped));
      return JSON.stringify(left) === JSON.stringify([`pvc/rp-${stopped}-volume`]);
    });
    const services = [`service/rp-${kept}-http`, `service/rp-${kept}-ports`, `service/rp-${orphan}-ports`];
    await until('every Service to exist', async () => {
      const objects = await k.objects();
      return services.every((name) => objects.includes(name));
    });
    const before = await k.objects();
    const podsBefore = await uids();

    // During the outage the orphan's Pod row goes, and a crash left a Service behind for a Pod that never existed.
    await k.p.scheduler().loop.stop();
    await k.p.db.pod.delete({ where: { id: orphan } });
    await k.kube.core.createNamespacedService({
      namespace: k.namespace,
      body: {
        metadata: { name: 'rp-ghost-ports', labels: { [LABELS.managedBy]: MANAGED_BY, [LABELS.podId]: 'ghost' } },
        spec: { type: 'NodePort', ports: [{ port: 22 }], selector: { [LABELS.podId]: 'ghost' } },
      },
    });
    await k.p.restartScheduler();

    const expected = before.filter((name) => !name.includes(orphan)).sort();
    await until(
      'the orphan and the leftover to be removed',
      async () => JSON.stringify(await k.objects()) === JSON.stringify(expected),
    ).catch(async (error: unknown) => {
      console.log(JSON.stringify({ before, expected, now: await k.objects() }, null, 1));
      throw error;
    });
    for (let pass = 0; pass < 3; pass += 1) {
      k.p.scheduler().loop.trigger();
      await k.p.scheduler().loop.settled();
    }
    expect(await k.objects()).toEqual(expected);
    const { [`rp-${orphan}`]: _gone, ...keptPods } = podsBefore;
    expect(await uids()).toEqual(keptPods);
    expect(await k.objects()).toEqual(
      expect.arrayContaining([
        `pod/rp-${kept}`,
        `service/rp-${kept}-ports`,
        `service/rp-${kept}-http`,
        `pvc/rp-${stopped}-volume`,
      ]),
    );
  });

  it('only the Lease holder acts; the standby takes over when the leader stops', async () => {
    const calls = new Map<string, number>();
    const config = schedulerEnvSchema.parse({ ...configEnv(k), KUBE_LEADER_IDENTITY: 'replica-b' });
    replicaB = await buildService({
      serviceName: 'scheduler',
      errorStyle: 'v1',
      config,
      module: (infrastructure) =>
        SchedulerModule.forRoot(infrastructure, config, () =>
          counted(createDriver(config, process.env, k.p.db), calls),
        ),
    });
    await replicaB.init();
    await until(
      'replica-a to hold the Lease',
      async () =>
        (await k.kube.coordination.readNamespacedLease({ name: LEASE, namespace: k.namespace })).spec
          ?.holderIdentity === 'replica-a',
    );

    const first = await create({});
    await running(first);
    expect(calls.size).toBe(0);

    // The leader stops (and hands the Lease back); replica-b takes over and runs the next Pod.
    await k.p.scheduler().loop.stop();
    await until(
      'replica-b to hold the Lease',
      async () =>
        (await k.kube.coordination.readNamespacedLease({ name: LEASE, namespace: k.namespace })).spec
          ?.holderIdentity === 'replica-b',
    );
    const second = await create({});
    await running(second);
    expect(calls.get('ensureRunning')).toBeGreaterThan(0);
    expect(await k.objects()).toEqual(expect.arrayContaining([`pod/rp-${first}`, `pod/rp-${second}`]));
  });
});

/** The scheduler environment of the platform, as text variables. */
function configEnv(k: KubePlatform): Record<string, string> {
  const config = k.p.config;
  return {
    ...k.schedulerEnv,
    DATABASE_URL: config.DATABASE_URL,
    REDIS_URL: config.REDIS_URL,
    REDIS_PREFIX: config.REDIS_PREFIX,
    LOG_LEVEL: 'warn',
    SCHEDULER_TICK_MS: String(config.SCHEDULER_TICK_MS),
    SCHEDULER_LEADER_TTL_MS: '3000',
  };
}
