// An apiserver outage as the scheduler sees it (its connections reset, new ones refused, through a TCP proxy): the
// informers restart with backoff and resume, work asked for during the outage is done afterwards, nothing twice.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeTestEnv, pollUntil, TcpProxy } from '@runplane/testing';
import { H100, type KubePlatform, startKubePlatform } from './kube-platform';

const POOL = 'sched-kube-outage';

describe('the kubernetes driver through an apiserver outage', () => {
  let k: KubePlatform;
  let proxy: TcpProxy;
  let dir: string;

  beforeAll(async () => {
    const env = kubeTestEnv();
    proxy = await TcpProxy.start(env.connection.server);
    dir = mkdtempSync(join(tmpdir(), 'runplane-outage-'));
    const kubeconfig = join(dir, 'kubeconfig.yaml');
    writeFileSync(kubeconfig, proxy.kubeconfigVia(env.kubeconfig));
    k = await startKubePlatform(
      POOL,
      [
        {
          name: 'h100',
          dataCenterId: 'EU-RO-1',
          count: 1,
          cpu: '224',
          memory: '2Ti',
          gpu: { type: H100, count: 8, memoryMiB: 81559 },
        },
      ],
      {
        scheduler: { KUBECONFIG: kubeconfig },
      },
    );
  }, 240_000);

  afterAll(async () => {
    proxy?.restore();
    await k?.close();
    await proxy?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  const until = <T>(what: string, check: () => Promise<T | undefined | false>) =>
    pollUntil(check, { timeoutMs: 60_000, intervalMs: 100, description: what });
  const row = (id: string) => k.p.db.pod.findUniqueOrThrow({ where: { id } });
  const create = async (): Promise<string> => {
    const created = await k.p.v1('POST', '/pods', {
      name: 'outage',
      imageName: 'runpod/base:0.6.2',
      gpuTypeIds: [H100],
      gpuCount: 1,
    });
    expect(created.status).toBe(201);
    return (created.body as { id: string }).id;
  };

  it('resumes after the outage: creates what was asked meanwhile, sees later changes, duplicates nothing', async () => {
    const before = await create();
    await until('the first Pod to run', async () => (await row(before)).observedPhase === 'RUNNING');
    const uid = (await k.pod(before))?.metadata?.uid;

    proxy.cut();
    // Placement needs only Postgres: the Pod is accepted during the outage; its passes fail to reach the cluster.
    const during = await create();
    for (let pass = 0; pass < 3; pass += 1) {
      k.p.scheduler().loop.trigger();
      await k.p.scheduler().loop.settled();
    }
    expect(await k.pod(during)).toBeUndefined();
    proxy.restore();

    await until(
      'the Pod created during the outage to run',
      async () => (await row(during)).observedPhase === 'RUNNING',
    );
    expect((await k.pod(before))?.metadata?.uid).toBe(uid);
    // The watches are live again: a stop made now is carried out and observed.
    await k.p.v1('POST', `/pods/${before}/stop`);
    await until(
      'the stop to be carried out',
      async () => (await k.pod(before)) === undefined && (await row(before)).observedPhase === 'EXITED',
    );
    expect((await k.objects()).filter((name) => name.startsWith('pod/'))).toEqual([`pod/rp-${during}`]);
  });
});
