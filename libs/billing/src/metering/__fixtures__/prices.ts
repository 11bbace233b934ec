import type { StoragePrices } from '@runplane/contracts';

/** The storage prices the metering specs bill with ($/GB-month; network volumes cheaper past 1000 GB). */
export const SPEC_STORAGE_PRICES: StoragePrices = {
  podDiskRunningPerGbMonth: 0.1,
  podDiskStoppedPerGbMonth: 0.2,
  networkVolumePerGbMonth: 0.07,
  networkVolumeOverTierPerGbMonth: 0.05,
  networkVolumeTierGb: 1000,
};
