import { DATA_CENTER_IDS, DEFAULT_GPU_TYPES } from '@runplane/catalog';
import { gfdProductName, loadNodePools } from '@runplane/testing';

describe('tools/k8s-testenv/pools.yaml', () => {
  it('uses catalog data centers and GPU types, so nodes carry the GFD product the scheduler maps', () => {
    for (const pool of loadNodePools()) {
      expect(DATA_CENTER_IDS).toContain(pool.dataCenterId);
      if (pool.gpu === undefined) continue;
      const gpuType = DEFAULT_GPU_TYPES.find((entry) => entry.id === pool.gpu?.type);
      expect(gpuType).toBeDefined();
      expect(gfdProductName(pool.gpu.type)).toBe(gpuType?.gfdProduct);
      expect(pool.gpu.count).toBeLessThanOrEqual(gpuType?.maxGpuCount ?? 0);
    }
  });
});
