// RunPod's own MCP server (@runpod/mcp-server, a real v2 management client) driven over stdio by the MCP SDK's
// client, pointed at a listening gateway through RUNPOD_API_BASE_URL (the base its generated REST client uses).
import { dirname, join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { seedCatalog } from '@runplane/catalog';
import { newId } from '@runplane/db';
import { type GatewayHarness, startGateway } from './harness';

// Tool payloads are JSON read field by field; each expectation states the shape it needs.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Payload = any;

const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG1mcpTestKeyOnlyForRunplaneSpecs runplane@test';

describe('RunPod MCP server against the gateway', () => {
  let gw: GatewayHarness;
  let client: Client;
  let stderr = '';

  /** Calls a tool; a tool error fails the test with the tool's own payload (status, problem detail, hint). */
  async function tool(name: string, args: Record<string, unknown> = {}): Promise<Payload> {
    const result = (await client.callTool({ name, arguments: args })) as {
      content: { text: string }[];
      isError?: boolean;
    };
    const payload: Payload = JSON.parse(result.content[0]?.text ?? 'null');
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(payload)}`);
    return payload;
  }

  beforeAll(async () => {
    gw = await startGateway('v2-mcp');
    await seedCatalog(gw.db);
    await gw.db.machine.create({
      data: {
        id: newId(),
        name: 'mcp-node',
        gpuTypeId: 'NVIDIA GeForce RTX 4090',
        gpuCount: 8,
        cpuCount: 64,
        memoryInGb: 256,
        dataCenterId: 'EU-RO-1',
        ready: true,
        schedulable: true,
      },
    });
    await gw.app.listen(0, '127.0.0.1');
    const { port } = gw.app.getHttpServer().address() as AddressInfo;
    const { secret } = await gw.accountWithKey();
    const server = join(dirname(require.resolve('@runpod/mcp-server/package.json')), 'dist', 'stdio.mjs');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [server],
      env: { PATH: process.env['PATH'] ?? '', RUNPOD_API_KEY: secret, RUNPOD_API_BASE_URL: `http://127.0.0.1:${port}` },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    client = new Client({ name: 'runplane-e2e', version: '1.0.0' });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
    await gw?.close();
    if (stderr.trim() !== '') process.stdout.write(`MCP server stderr:\n${stderr}\n`);
  });

  it('offers its v2 tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['list-gpu-types', 'create-pod', 'pod-action', 'create-endpoint', 'list-billing']),
    );
  });

  it('reads the catalog: GPU types with pools and availability, CPU flavors, data centers, public templates', async () => {
    const gpus = await tool('list-gpu-types', { include: ['AVAILABILITY'], product: ['POD'] });
    expect(gpus.gpus).toContainEqual(
      expect.objectContaining({ id: 'NVIDIA GeForce RTX 4090', pool: 'ADA_24', availability: 'HIGH' }),
    );
    const rtx = await tool('get-gpu-type', {
      id: 'NVIDIA GeForce RTX 4090',
      include: ['AVAILABILITY'],
      product: ['SERVERLESS'],
    });
    expect(rtx.dataCenters).toEqual([{ id: 'EU-RO-1', name: 'Romania 1', availability: 'HIGH' }]);
    expect((await tool('list-cpu-types')).cpus).toContainEqual(expect.objectContaining({ id: 'cpu3c' }));
    expect(await tool('get-cpu-type', { id: 'cpu5c' })).toMatchObject({ id: 'cpu5c', group: 'Gen 5' });
    expect((await tool('list-data-centers', { regions: ['EUROPE'] })).dataCenters).toContainEqual(
      expect.objectContaining({ id: 'EU-RO-1', region: 'EUROPE' }),
    );
    expect(await tool('get-data-center', { id: 'US-TX-3' })).toMatchObject({ region: 'NORTH_AMERICA' });
    const official = await tool('list-public-templates', { source: 'official' });
    expect(official.templates.map((t: { id: string }) => t.id)).toContain('runpod-ubuntu');
  });

  it('replaces and reads the account SSH keys', async () => {
    expect(await tool('update-ssh-keys', { body: { keys: [SSH_KEY] } })).toEqual({ keys: [SSH_KEY] });
    expect(await tool('get-ssh-keys')).toEqual({ keys: [SSH_KEY] });
  });

  it('creates, reads, updates and deletes a template', async () => {
    const created = await tool('create-template', {
      body: { name: 'mcp-template', image: 'acme/tool:1', disk: 20, ports: ['8888/http'], env: { A: '1' } },
    });
    expect(created).toMatchObject({ name: 'mcp-template', image: 'acme/tool:1' });
    expect(await tool('get-template', { id: created.id })).toMatchObject({ id: created.id });
    expect(await tool('update-template', { id: created.id, body: { image: 'acme/tool:2' } })).toMatchObject({
      image: 'acme/tool:2',
    });
    await tool('delete-template', { id: created.id });
  });

  it('creates a network volume, grows it, lists and deletes it', async () => {
    const volume = await tool('create-network-volume', {
      body: { name: 'mcp-volume', size: 10, dataCenter: 'EU-RO-1' },
    });
    expect(volume).toMatchObject({ name: 'mcp-volume', size: 10 });
    expect(await tool('update-network-volume', { id: volume.id, body: { size: 20 } })).toMatchObject({ size: 20 });
    expect((await tool('list-network-volumes')).networkVolumes).toContainEqual(
      expect.objectContaining({ id: volume.id }),
    );
    expect(await tool('get-network-volume', { id: volume.id })).toMatchObject({ dataCenter: 'EU-RO-1' });
    await tool('delete-network-volume', { id: volume.id });
  });

  it('runs a GPU pod and a CPU pod through their actions', async () => {
    const gpu = await tool('create-pod', {
      body: { name: 'mcp-gpu', image: 'acme/train:1', gpu: { id: 'NVIDIA GeForce RTX 4090', count: 1 } },
    });
    expect(gpu).toMatchObject({ name: 'mcp-gpu', gpu: expect.objectContaining({ id: 'NVIDIA GeForce RTX 4090' }) });
    const cpu = await tool('create-pod', {
      body: { name: 'mcp-cpu', image: 'acme/tool:1', cpu: { id: 'cpu3c', vcpuCount: 2 } },
    });
    expect(cpu).toMatchObject({ name: 'mcp-cpu' });
    expect((await tool('list-pods')).pods.map((p: { id: string }) => p.id)).toEqual(
      expect.arrayContaining([gpu.id, cpu.id]),
    );
    expect(await tool('get-pod', { id: gpu.id })).toMatchObject({ id: gpu.id });
    expect(await tool('pod-action', { id: gpu.id, body: { action: 'stop' } })).toMatchObject({ id: gpu.id });
    expect(await tool('pod-action', { id: gpu.id, body: { action: 'start' } })).toMatchObject({ id: gpu.id });
    expect(await tool('update-pod', { id: cpu.id, body: { name: 'mcp-cpu-renamed' } })).toMatchObject({
      name: 'mcp-cpu-renamed',
    });
    await tool('pod-action', { id: cpu.id, body: { action: 'terminate' } });
    await tool('delete-pod', { id: gpu.id });
  });

  it('deploys a serverless endpoint and reads its workers and releases', async () => {
    const endpoint = await tool('create-endpoint', {
      body: {
        name: 'mcp-endpoint',
        type: 'QUEUE',
        image: 'acme/worker:1',
        gpu: { pools: ['ADA_24'], count: 1 },
        workers: { min: 0, max: 2 },
        scaling: { type: 'QUEUE_DELAY', queueDelay: 4 },
      },
    });
    expect(endpoint).toMatchObject({ name: 'mcp-endpoint', gpu: expect.objectContaining({ pools: ['ADA_24'] }) });
    expect(endpoint.requestUrls.run).toBe(`http://127.0.0.1:8081/v2/${endpoint.id}/run`);
    expect(await tool('get-endpoint', { id: endpoint.id })).toMatchObject({ id: endpoint.id });
    expect(await tool('list-endpoint-workers', { id: endpoint.id })).toMatchObject({
      workers: [],
      summary: { total: 0 },
    });
    expect(await tool('update-endpoint', { id: endpoint.id, body: { image: 'acme/worker:2' } })).toMatchObject({
      image: 'acme/worker:2',
    });
    const releases = await tool('list-endpoint-releases', { id: endpoint.id });
    expect(releases.releases.map((r: { version: number }) => r.version)).toEqual([1, 0]);
    await tool('delete-endpoint', { id: endpoint.id });
  });

  it('reads billing: the aggregate and each family', async () => {
    await gw.db.billingRecord.create({
      data: {
        id: newId(),
        accountId: (await gw.db.apiKey.findFirstOrThrow()).accountId,
        kind: 'POD',
        podId: 'billed-pod',
        gpuTypeId: 'NVIDIA A40',
        time: new Date(Date.UTC(2026, 5, 1, 5)),
        amount: 0.4,
      },
    });
    const window = { startTime: '2026-06-01T00:00:00Z', endTime: '2026-06-02T00:00:00Z', bucketSize: 'day' };
    expect(await tool('list-billing', window)).toMatchObject({ metadata: { totals: { totalAmount: 0.4 } } });
    expect(await tool('list-pod-billing', window)).toMatchObject({
      records: [expect.objectContaining({ podId: 'billed-pod' })],
    });
    expect(await tool('list-serverless-billing', { lastN: 7 })).toMatchObject({ records: [] });
    expect(await tool('list-network-volume-billing', { lastN: 2, bucketSize: 'month' })).toMatchObject({ records: [] });
  });
});
