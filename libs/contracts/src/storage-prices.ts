/**
 * Storage prices in USD per GB-month, as the operator's catalog sets them and billing applies them: a Pod's disk
 * while it runs and while it is stopped, and network volumes with a lower price above a size tier.
 */
export interface StoragePrices {
  /** A running Pod's container disk plus volume. */
  podDiskRunningPerGbMonth: number;
  /** A stopped Pod's container disk plus volume (kept while the Pod is not terminated). */
  podDiskStoppedPerGbMonth: number;
  /** A network volume, for its first `networkVolumeTierGb` GB. */
  networkVolumePerGbMonth: number;
  /** A network volume, for every GB above `networkVolumeTierGb`. */
  networkVolumeOverTierPerGbMonth: number;
  /** Size at which network volume storage gets the lower price. */
  networkVolumeTierGb: number;
}
