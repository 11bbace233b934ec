import type { DataCenterEntry } from '@runplane/catalog';
import type { DataCenterView, REGIONS } from './catalog.schemas';

const REGION_OF: Record<string, (typeof REGIONS)[number]> = {
  europe: 'EUROPE',
  'north america': 'NORTH_AMERICA',
  'south america': 'SOUTH_AMERICA',
  asia: 'ASIA',
  'middle east': 'MIDDLE_EAST',
  africa: 'AFRICA',
  oceania: 'OCEANIA',
  antarctica: 'ANTARCTICA',
};

/** The continent a catalog location starts with ("Europe, Romania" → EUROPE); UNKNOWN otherwise. */
export function regionOf(location: string): (typeof REGIONS)[number] {
  return REGION_OF[(location.split(',')[0] ?? '').trim().toLowerCase()] ?? 'UNKNOWN';
}

/**
 * A catalog data center as RunPod's DataCenter. Runplane records no compliance certifications and offers no
 * cross-data-center pod network, so `compliance` is empty and `globalNetwork` false.
 */
export function dataCenterView(entry: DataCenterEntry): DataCenterView {
  const volumeTypes: DataCenterView['networkVolumeTypes'] = [];
  if (entry.storageSupport) volumeTypes.push('STANDARD');
  if (entry.storageSupport && entry.highPerformanceStorage) volumeTypes.push('HIGH_PERFORMANCE');
  return {
    id: entry.id,
    name: entry.name,
    region: regionOf(entry.location),
    globalNetwork: false,
    networkVolumeTypes: volumeTypes,
    compliance: [],
  };
}
