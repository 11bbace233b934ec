import { seedCatalog } from '@runplane/catalog';
import { type GatewayHarness, startGateway } from './harness';
import { problemOf, type V2Caller, v2Caller } from './v2-helpers';

interface PodV2 {
  id: string;
  name: string;
  image: string;
  args: string;
  status: string;
  actions: string[];
  env: Record<string, string>;
  ports: string[];
  mounts: Record<string, unknown>;
  gpu?: { id: string; count: number };
  cpu?: { id: string; vcpuCount: number };
  locked: boolean;
  runtime: { uptime: number; ports: unknown[] } | null;
  ssh: { proxy: unknown; direct: unknown };
}

const GPU = 'NVIDIA GeForce RTX 4090';

describe('v2 /pods: the same Pods as v1, in v2 shapes', () => {
  let gw: GatewayHarness;
  let me: V2Caller;

  beforeAll(async () => {
    gw = await startGateway('v2-pods');
    await seedCatalog(gw.db);
    me = await v2Caller(gw);
  });
  afterAll(() => gw.close());

  const create = async (body: Record<string, unknown>): Promise<PodV2> => {
    const res = await me.call('POST', '/v2/pods', body);
    expect({ status: res.statusCode, body: res.json<unknown>() }).toEqual({ status: 201, body: expect.anything() });
    return res.json<PodV2>();
  };
  const get = async (id: string): Promise<PodV2> => (await me.call('GET', `/v2/pods/${id}`)).json<PodV2>();
  const act = (id: string, action: string) => me.call('POST', `/v2/pods/${id}/action`, { action });
  const observe = (id: string, observedPhase: 'RUNNING' | 'FAILED', extra: Record<string, unknown> = {}) =>
    gw.db.pod.update({ where: { id }, data: { observedPhase, ...extra } });

  it('creates a GPU Pod (201) and reads it back through v2 and v1', async () => {
    const pod = await create({
      name: 'trainer',
      image: 'runpod/pytorch:2.8',
      args: 'python train.py --epochs "2 3"',
      gpu: { id: GPU, count: 2 },
      disk: 40,
      ports: ['8888/http', '22/tcp'],
      env: { MODEL: 'llama' },
      mounts: { persistent: { size: 20, path: '/workspace' } },
    });
    expect(pod).toMatchObject({
      name: 'trainer',
      image: 'runpod/pytorch:2.8',
      args: 'python train.py --epochs "2 3"',
      status: 'PROVISIONING',
      actions: ['stop', 'terminate'],
      disk: 40,
      ports: ['8888/http', '22/tcp'],
      env: { MODEL: 'llama' },
      mounts: { persistent: { size: 20, path: '/workspace' } },
      gpu: { id: GPU, count: 2 },
      cloud: 'SECURE',
      registry: null,
      template: null,
      locked: false,
      globalNetworking: { enabled: false },
      runtime: null,
      ssh: { proxy: null, direct: null },
      startedAt: expect.any(String),
      createdAt: expect.any(String),
    });
    expect(await get(pod.id)).toEqual(pod);
    const v1 = (await me.call('GET', `/v1/pods/${pod.id}`)).json<Record<string, unknown>>();
    expect(v1).toMatchObject({
      id: pod.id,
      imageName: 'runpod/pytorch:2.8',
      desiredStatus: 'RUNNING',
      gpuCount: 2,
      containerDiskInGb: 40,
      volumeInGb: 20,
      dockerStartCmd: ['python', 'train.py', '--epochs', '2 3'],
    });
  });

  it('creates a CPU Pod; no mount means no volume', async () => {
    const pod = await create({ name: 'cpu', image: 'alpine:3', cpu: { id: 'cpu3c', vcpuCount: 4 } });
    expect(pod).toMatchObject({ cpu: { id: 'cpu3c', vcpuCount: 4 }, mounts: {} });
    expect(pod.gpu).toBeUndefined();
    expect((await me.call('GET', `/v1/pods/${pod.id}`)).json()).toMatchObject({ computeType: 'CPU', volumeInGb: 0 });
  });

  it('v1 <-> v2: a Pod made in v1 is listed in v2, a v2 PATCH shows in v1, a v1 stop shows in v2', async () => {
    const v1 = (
      await me.call('POST', '/v1/pods', { name: 'from-v1', imageName: 'alpine:3', gpuTypeIds: [GPU], volumeInGb: 0 })
    ).json<{ id: string }>();
    expect((await me.call('GET', '/v2/pods')).json<{ pods: PodV2[] }>().pods.map((p) => p.id)).toContain(v1.id);
    const patched = await me.call('PATCH', `/v2/pods/${v1.id}`, { name: 'renamed', env: { A: '1' } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ name: 'renamed', env: { A: '1' } });
    expect((await me.call('GET', `/v1/pods/${v1.id}`)).json()).toMatchObject({ name: 'renamed', env: { A: '1' } });
    expect((await me.call('POST', `/v1/pods/${v1.id}/stop`)).statusCode).toBe(200);
    expect(await get(v1.id)).toMatchObject({ status: 'EXITED', actions: ['start', 'terminate'] });
    expect((await act(v1.id, 'start')).statusCode).toBe(200);
    expect((await me.call('GET', `/v1/pods/${v1.id}`)).json()).toMatchObject({ desiredStatus: 'RUNNING' });
  });

  it('actions follow the status: 409 when not valid, 200 with the Pod, 204 for terminate', async () => {
    const pod = await create({ name: 'acts', image: 'alpine:3', gpu: { id: GPU } });
    for (const action of ['start', 'restart']) {
      const refused = problemOf(await act(pod.id, action), 409);
      expect(refused.detail).toBe(`Cannot ${action} a Pod that is PROVISIONING; valid now: stop, terminate`);
    }
    const stopped = await act(pod.id, 'stop');
    expect(stopped.statusCode).toBe(200);
    expect(stopped.json()).toMatchObject({ id: pod.id, status: 'EXITED', actions: ['start', 'terminate'] });
    problemOf(await act(pod.id, 'stop'), 409);
    expect((await act(pod.id, 'start')).json()).toMatchObject({ status: 'PROVISIONING' });
    await observe(pod.id, 'RUNNING', { publicIp: '203.0.113.9', portMappings: { '22': 40022 } });
    expect(await get(pod.id)).toMatchObject({ status: 'RUNNING', actions: ['stop', 'restart', 'terminate'] });
    const restarted = await act(pod.id, 'restart');
    expect(restarted.statusCode).toBe(200);
    expect((await gw.db.pod.findUniqueOrThrow({ where: { id: pod.id } })).generation).toBe(2);
    await observe(pod.id, 'FAILED');
    expect(await get(pod.id)).toMatchObject({ status: 'ERROR', actions: ['start', 'terminate'] });
    const terminated = await act(pod.id, 'terminate');
    expect({ status: terminated.statusCode, body: terminated.body }).toEqual({ status: 204, body: '' });
    problemOf(await me.call('GET', `/v2/pods/${pod.id}`), 404);
    expect((await me.call('GET', `/v1/pods/${pod.id}`)).statusCode).toBe(404);
  });

  it('a running Pod shows its runtime ports and direct SSH', async () => {
    const pod = await create({ name: 'ssh', image: 'alpine:3', gpu: { id: GPU }, ports: ['22/tcp', '8888/http'] });
    await observe(pod.id, 'RUNNING', { publicIp: '203.0.113.9', portMappings: { '22': 40022 } });
    const running = await get(pod.id);
    expect(running.ssh.direct).toEqual({
      host: '203.0.113.9',
      port: 40022,
      username: 'root',
      command: 'ssh root@203.0.113.9 -p 40022',
    });
    expect(running.runtime?.ports).toEqual([
      { private: 22, public: 40022, type: 'tcp', ip: '203.0.113.9' },
      { private: 8888, public: null, type: 'http', ip: '203.0.113.9' },
    ]);
  });

  it('reset is not a v2 action (422), and locked Pods refuse stop', async () => {
    const pod = await create({ name: 'locked', image: 'alpine:3', gpu: { id: GPU } });
    expect(problemOf(await act(pod.id, 'reset'), 422).errors?.[0]).toMatch(/^\$\.action: /);
    expect((await me.call('PATCH', `/v2/pods/${pod.id}`, { locked: true })).json()).toMatchObject({ locked: true });
    expect(problemOf(await act(pod.id, 'stop'), 400).detail).toMatch(/locked/);
  });

  it('PATCH keeps the mount kind fixed and changes only what is sent', async () => {
    const volume = (
      await me.call('POST', '/v1/networkvolumes', { name: 'data', size: 50, dataCenterId: 'EU-RO-1' })
    ).json<{ id: string }>();
    const pod = await create({
      name: 'net',
      image: 'alpine:3',
      gpu: { id: GPU },
      dataCenterIds: ['EU-RO-1'],
      mounts: { network: [{ volumeId: volume.id, path: '/data' }] },
    });
    expect(pod.mounts).toEqual({ network: [{ volumeId: volume.id, path: '/data' }] });
    const moved = await me.call('PATCH', `/v2/pods/${pod.id}`, {
      mounts: { network: [{ volumeId: volume.id, path: '/mnt' }] },
    });
    expect(moved.json()).toMatchObject({ mounts: { network: [{ volumeId: volume.id, path: '/mnt' }] }, name: 'net' });
    problemOf(
      await me.call('PATCH', `/v2/pods/${pod.id}`, { mounts: { network: [{ volumeId: 'other', path: '/x' }] } }),
      400,
    );
    problemOf(await me.call('PATCH', `/v2/pods/${pod.id}`, { mounts: { persistent: { size: 20, path: '/w' } } }), 400);
    problemOf(await me.call('PATCH', `/v2/pods/${pod.id}`, { mounts: { network: [] } }), 400);
    expect((await me.call('PATCH', `/v2/pods/${pod.id}`, { mounts: {} })).statusCode).toBe(200);
  });

  it('PATCH with a templateId applies its container settings (the body wins) and records the template', async () => {
    const template = (
      await me.call('POST', '/v2/templates', {
        name: 'tpl',
        image: 'runpod/vllm:1',
        args: 'serve --port 8000',
        env: { FROM: 'template', SHARED: 'template' },
        ports: ['8000/http'],
      })
    ).json<{ id: string }>();
    const pod = await create({ name: 'retemplated', image: 'alpine:3', gpu: { id: GPU }, env: { OWN: 'x' } });
    const patched = await me.call('PATCH', `/v2/pods/${pod.id}`, { templateId: template.id, env: { SHARED: 'body' } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({
      template: template.id,
      image: 'runpod/vllm:1',
      args: 'serve --port 8000',
      ports: ['8000/http'],
      env: { FROM: 'template', SHARED: 'body' },
    });
    expect((await me.call('GET', `/v1/pods/${pod.id}`)).json()).toMatchObject({ templateId: template.id });
  });

  it('DELETE answers 204 and the Pod is gone from both APIs', async () => {
    const pod = await create({ name: 'bye', image: 'alpine:3', gpu: { id: GPU } });
    const deleted = await me.call('DELETE', `/v2/pods/${pod.id}`);
    expect({ status: deleted.statusCode, body: deleted.body }).toEqual({ status: 204, body: '' });
    problemOf(await me.call('GET', `/v2/pods/${pod.id}`), 404);
    problemOf(await me.call('DELETE', `/v2/pods/${pod.id}`), 404);
    expect((await me.call('GET', '/v1/pods')).json<{ id: string }[]>().map((p) => p.id)).not.toContain(pod.id);
  });

  it('startSsh: true gives the Pod the account SSH keys in PUBLIC_KEY; left out, as on RunPod, it gets none', async () => {
    const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILXGDN/SclOozk1xsDztpmhGiKkkrfQB9SKoO8dSIQQZ me@example.com';
    expect((await me.call('PUT', '/v2/account/ssh-keys', { keys: [key] })).statusCode).toBe(200);
    const cpu = { image: 'alpine:3', cpu: { id: 'cpu3c', vcpuCount: 2 }, env: { A: '1' } };
    expect((await create({ ...cpu, name: 'ssh-on', startSsh: true })).env).toEqual({ A: '1', PUBLIC_KEY: key });
    expect((await create({ ...cpu, name: 'ssh-default' })).env).toEqual({ A: '1' });
    expect((await create({ ...cpu, name: 'ssh-off', startSsh: false })).env).toEqual({ A: '1' });
  });

  it('lists every route in /v2/openapi.json', async () => {
    const paths = (await gw.inject({ method: 'GET', url: '/v2/openapi.json' })).json<{
      paths: Record<string, object>;
    }>().paths;
    expect(Object.keys(paths['/v2/pods'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/v2/pods/{id}'] ?? {}).sort()).toEqual(['delete', 'get', 'patch']);
    expect(Object.keys(paths['/v2/pods/{id}/action'] ?? {})).toEqual(['post']);
    expect(Object.keys(paths['/v2/pods/{id}/logs'] ?? {})).toEqual(['get']);
  });
});
