import type { StoragePrices } from '@runplane/contracts';

/**
 * Storage prices, USD per GB-month, as RunPod publishes them: a Pod's container disk and volume cost
 * $0.10/GB-month while it runs and $0.20/GB-month while it is stopped; a network volume costs $0.07/GB-month
 * up to 1 TB (1,000 GB) and $0.05/GB-month for the GB above. Billing counts a month as 730 hours
 * (365 x 24 / 12) and meters storage to the millisecond.
 */
export const DEFAULT_STORAGE_PRICES: StoragePrices = {
  podDiskRunningPerGbMonth: 0.1,
  podDiskStoppedPerGbMonth: 0.2,
  networkVolumePerGbMonth: 0.07,
  networkVolumeOverTierPerGbMonth: 0.05,
  networkVolumeTierGb: 1000,
};
