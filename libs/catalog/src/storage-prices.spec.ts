import { buildCatalog, CatalogOverridesError, DEFAULT_STORAGE_PRICES, parseCatalogOverrides } from '.';

describe('storage prices', () => {
  it('default to RunPod published prices per GB-month', () => {
    expect(buildCatalog().storagePrices).toEqual({
      podDiskRunningPerGbMonth: 0.1,
      podDiskStoppedPerGbMonth: 0.2,
      networkVolumePerGbMonth: 0.07,
      networkVolumeOverTierPerGbMonth: 0.05,
      networkVolumeTierGb: 1000,
    });
    expect(buildCatalog().storagePrices).toEqual(DEFAULT_STORAGE_PRICES);
  });

  it('take operator overrides field by field', () => {
    const overrides = parseCatalogOverrides({
      storagePrices: { podDiskStoppedPerGbMonth: 0.15, networkVolumeTierGb: 2048 },
    });
    expect(buildCatalog(overrides).storagePrices).toEqual({
      ...DEFAULT_STORAGE_PRICES,
      podDiskStoppedPerGbMonth: 0.15,
      networkVolumeTierGb: 2048,
    });
  });

  it.each([
    [{ storagePrices: { podDiskRunningPerGbMonth: -1 } }, 'storagePrices.podDiskRunningPerGbMonth'],
    [{ storagePrices: { networkVolumeTierGb: 1.5 } }, 'storagePrices.networkVolumeTierGb'],
    [{ storagePrices: { volumePerGbMonth: 0.1 } }, 'storagePrices.volumePerGbMonth'],
  ])('reject %j naming the field', (input, field) => {
    expect(() => parseCatalogOverrides(input)).toThrow(CatalogOverridesError);
    expect(() => parseCatalogOverrides(input)).toThrow(field);
  });
});
