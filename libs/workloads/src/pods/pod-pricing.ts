/** A GPU type as the Pod rules need it (prices in USD per GPU-hour, null when not offered). */
export interface PodGpuType {
  id: string;
  displayName: string;
  maxGpuCount: number;
  securePrice: number | null;
  communityPrice: number | null;
  secureSpotPrice: number | null;
  communitySpotPrice: number | null;
  oneWeekPrice: number | null;
  oneMonthPrice: number | null;
  threeMonthPrice: number | null;
  sixMonthPrice: number | null;
}

/** A CPU flavor as the Pod rules need it. */
export interface PodCpuFlavor {
  id: string;
  minVcpu: number;
  maxVcpu: number;
  ramPerVcpuGb: number;
  /** USD per vCPU-hour. */
  pricePerVcpuHr: number;
}

/**
 * The catalog reads Pods need. Method names match `CatalogRepository` of @runplane/catalog, which the gateway
 * passes in (domain libs don't import each other).
 */
export interface PodCatalog {
  findGpuType(id: string): Promise<PodGpuType | null>;
  listGpuTypes(): Promise<PodGpuType[]>;
  findCpuFlavor(id: string): Promise<PodCpuFlavor | null>;
  listCpuFlavors(): Promise<PodCpuFlavor[]>;
  findDataCenter(id: string): Promise<{ id: string } | null>;
}

/** Secure or community cloud. */
export type PodCloudType = 'SECURE' | 'COMMUNITY';

/** Hourly price of one GPU of this type in the given cloud (spot price when interruptible); null when not offered. */
export function gpuHourlyPrice(gpu: PodGpuType, cloudType: PodCloudType, interruptible: boolean): number | null {
  if (cloudType === 'SECURE') return interruptible ? gpu.secureSpotPrice : gpu.securePrice;
  return interruptible ? gpu.communitySpotPrice : gpu.communityPrice;
}

/** Rounds to the 6 decimals the money columns keep. */
export const roundMoney = (value: number): number => Math.round(value * 1_000_000) / 1_000_000;

/** Which GPU types a request may get and how they are ordered. */
export interface GpuOfferOptions {
  cloudType: PodCloudType;
  interruptible: boolean;
  gpuCount: number;
  priorityListGiven: boolean;
}

/**
 * The GPU types a new Pod may be placed on, in placement order with their per-GPU price: those offered in the
 * requested cloud that allow `gpuCount` GPUs, in the caller's priority order, or cheapest first without a list.
 * The scheduler then picks the first (or most available) one with free capacity.
 */
export function offeredGpuTypes(
  candidates: readonly PodGpuType[],
  options: GpuOfferOptions,
): { gpu: PodGpuType; price: number }[] {
  const offered = candidates
    .map((gpu) => ({ gpu, price: gpuHourlyPrice(gpu, options.cloudType, options.interruptible) }))
    .filter(
      (entry): entry is { gpu: PodGpuType; price: number } =>
        entry.price !== null && entry.gpu.maxGpuCount >= options.gpuCount,
    );
  return options.priorityListGiven ? offered : [...offered].sort((a, b) => a.price - b.price);
}

/** The first offered GPU type regardless of capacity, with the Pod's hourly cost. */
export function chooseGpuType(
  candidates: readonly PodGpuType[],
  options: GpuOfferOptions,
): { gpu: PodGpuType; costPerHr: number } | null {
  const chosen = offeredGpuTypes(candidates, options)[0];
  return chosen ? { gpu: chosen.gpu, costPerHr: roundMoney(chosen.price * options.gpuCount) } : null;
}

/** A savings plan as the cost rules need it. */
export interface ActivePlan {
  costPerHr: number;
  startTime: Date;
  endTime: Date;
}

/**
 * The effective hourly cost after savings plans: a plan active now replaces the on-demand rate with its own
 * (lower) rate; a plan never raises the cost.
 */
export function adjustedCostPerHr(costPerHr: number, plans: readonly ActivePlan[], now: Date): number {
  const active = plans.filter((plan) => plan.startTime <= now && now < plan.endTime);
  return roundMoney(Math.min(costPerHr, ...active.map((plan) => plan.costPerHr)));
}
