import type { StoragePrices } from '@runplane/contracts';

/** A GPU model as the catalog describes it; prices are USD per GPU-hour, null when not offered. */
export interface GpuTypeEntry {
  /** Wire id, e.g. "NVIDIA H100 80GB HBM3". */
  id: string;
  displayName: string;
  manufacturer: string;
  memoryInGb: number;
  /** GFD `nvidia.com/gpu.product` label of nodes carrying this model. */
  gfdProduct: string | null;
  maxGpuCount: number;
  /** Serverless GPU pool (e.g. "ADA_24"); null when the type serves Pods only. */
  pool: string | null;
  secureCloud: boolean;
  communityCloud: boolean;
  securePrice: number | null;
  communityPrice: number | null;
  secureSpotPrice: number | null;
  communitySpotPrice: number | null;
  oneWeekPrice: number | null;
  oneMonthPrice: number | null;
  threeMonthPrice: number | null;
  sixMonthPrice: number | null;
}

/** A CPU instance family; instance ids are "<id>-<vcpu>-<ramGb>". */
export interface CpuFlavorEntry {
  id: string;
  displayName: string;
  groupId: string;
  minVcpu: number;
  maxVcpu: number;
  ramPerVcpuGb: number;
  /** USD per vCPU-hour. */
  pricePerVcpuHr: number;
}

/** A data center, e.g. "EU-RO-1". */
export interface DataCenterEntry {
  id: string;
  name: string;
  location: string;
  /** ISO 3166-1 alpha-2. */
  countryCode: string;
  storageSupport: boolean;
  highPerformanceStorage: boolean;
  listed: boolean;
}

/** The whole catalog: the entries {@link seedCatalog} writes, and the storage prices billing reads. */
export interface Catalog {
  gpuTypes: GpuTypeEntry[];
  cpuFlavors: CpuFlavorEntry[];
  dataCenters: DataCenterEntry[];
  templates: PublicTemplateEntry[];
  storagePrices: StoragePrices;
}

/** A public template of the catalog (v2 `/v2/catalog/templates`, v1 `isRunpod`), published by the operator. */
export interface PublicTemplateEntry {
  id: string;
  name: string;
  imageName: string;
  category: 'NVIDIA' | 'AMD' | 'CPU';
  isServerless: boolean;
  containerDiskInGb: number;
  volumeInGb: number;
  volumeMountPath: string;
  ports: string[];
  env: Record<string, string>;
  dockerStartCmd: string[];
  dockerEntrypoint: string[];
  readme: string;
}
