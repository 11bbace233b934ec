import { DEFAULT_GPU_TYPES, seedCatalog } from '@runplane/catalog';
import { newId } from '@runplane/db';
import { postGraphql } from './fixtures/graphql/client';
import { CTL_GPU_LIST, FLASH_GPU_STOCK, MCP_GPU_STOCK, PY_GET_GPUS, pyGetGpu } from './fixtures/graphql/runpod-texts';
import { type GatewayHarness, startGateway } from './harness';

const RTX = 'NVIDIA GeForce RTX 4090';

describe('GraphQL gpuTypes', () => {
  let gw: GatewayHarness;
  let key: string;

  beforeAll(async () => {
    gw = await startGateway('graphql-gpu-types');
    await seedCatalog(gw.db);
    ({ secret: key } = await gw.accountWithKey());
    // Eight free RTX 4090s in EU-RO-1: enough for HIGH stock.
    await gw.db.machine.create({
      data: {
        id: newId(),
        name: `node-${newId(6)}`,
        ready: true,
        schedulable: true,
        dataCenterId: 'EU-RO-1',
        gpuTypeId: RTX,
        gpuCount: 8,
        cpuCount: 64,
        memoryInGb: 256,
      },
    });
  });

  afterAll(() => gw.close());

  it("lists every catalog GPU type for runpod-python's get_gpus and runpodctl's gpu list", async () => {
    const py = await postGraphql(gw, { key, query: PY_GET_GPUS });
    expect(py.status).toBe(200);
    expect(py.body.data?.gpuTypes).toHaveLength(DEFAULT_GPU_TYPES.length);
    const rtx = DEFAULT_GPU_TYPES.find((gpu) => gpu.id === RTX);
    expect(py.body.data?.gpuTypes).toContainEqual({ id: RTX, displayName: rtx?.displayName, memoryInGb: 24 });

    const ctl = await postGraphql(gw, { key, query: CTL_GPU_LIST, variables: null });
    expect(ctl.body.data?.gpuTypes).toContainEqual({
      id: RTX,
      displayName: rtx?.displayName,
      memoryInGb: 24,
      secureCloud: rtx?.secureCloud,
      communityCloud: rtx?.communityCloud,
    });
  });

  it("answers runpod-python's get_gpu with the type's prices and lowest price, inline", async () => {
    const res = await postGraphql(gw, { key, query: pyGetGpu(RTX) });
    const rtx = DEFAULT_GPU_TYPES.find((gpu) => gpu.id === RTX);
    expect(res.body).toEqual({
      data: {
        gpuTypes: [
          {
            maxGpuCount: rtx?.maxGpuCount,
            id: RTX,
            displayName: rtx?.displayName,
            manufacturer: 'NVIDIA',
            memoryInGb: 24,
            cudaCores: null,
            secureCloud: rtx?.secureCloud,
            communityCloud: rtx?.communityCloud,
            securePrice: rtx?.securePrice,
            communityPrice: rtx?.communityPrice,
            oneMonthPrice: rtx?.oneMonthPrice,
            threeMonthPrice: rtx?.threeMonthPrice,
            oneWeekPrice: rtx?.oneWeekPrice,
            communitySpotPrice: rtx?.communitySpotPrice,
            secureSpotPrice: rtx?.secureSpotPrice,
            lowestPrice: { minimumBidPrice: rtx?.secureSpotPrice, uninterruptablePrice: rtx?.securePrice },
          },
        ],
      },
    });
  });

  it('answers [] for an unknown GPU id (runpod-python raises ValueError on an empty list)', async () => {
    const res = await postGraphql(gw, { key, query: pyGetGpu('NVIDIA Nonexistent 9000') });
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { data: { gpuTypes: [] } } });
  });

  it('reports stock through lowestPrice, inline (runpod-mcp) and with variables (flash)', async () => {
    const mcp = await postGraphql(gw, { key, query: MCP_GPU_STOCK });
    const stock = new Map(
      (mcp.body.data?.gpuTypes as { id: string; lowestPrice: { stockStatus: string | null } }[]).map((gpu) => [
        gpu.id,
        gpu.lowestPrice.stockStatus,
      ]),
    );
    expect(stock.get(RTX)).toBe('High');
    expect(stock.get('NVIDIA A40')).toBeNull();

    const flash = async (lowestPriceInput: object) =>
      postGraphql(gw, {
        key,
        query: FLASH_GPU_STOCK,
        variables: { gpuTypesInput: { ids: [RTX] }, lowestPriceInput },
      });
    expect((await flash({ gpuCount: 1, dataCenterId: 'EU-RO-1', secureCloud: true })).body).toEqual({
      data: { gpuTypes: [{ lowestPrice: { stockStatus: 'High' } }] },
    });
    expect((await flash({ gpuCount: 1, dataCenterId: 'US-TX-3', secureCloud: true })).body).toEqual({
      data: { gpuTypes: [{ lowestPrice: { stockStatus: null } }] },
    });
    expect((await flash({ gpuCount: 9 })).body).toEqual({
      data: { gpuTypes: [{ lowestPrice: { stockStatus: null } }] },
    });
  });

  it('refuses a wrongly typed variable with HTTP 200 and a message', async () => {
    const res = await postGraphql(gw, { key, query: FLASH_GPU_STOCK, variables: { gpuTypesInput: { ids: 5 } } });
    expect(res.status).toBe(200);
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors?.[0]?.message).toMatch(/gpuTypesInput/);
  });
});
