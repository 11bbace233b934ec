import type { DataCenterEntry } from '../entries';

// [id, name, location, country code, network storage]
type Row = readonly [string, string, string, string, boolean];

const ROWS: readonly Row[] = [
  ['EU-RO-1', 'Romania 1', 'Europe, Romania', 'RO', true],
  ['CA-MTL-1', 'Montreal 1', 'North America, Canada', 'CA', true],
  ['EU-SE-1', 'Sweden 1', 'Europe, Sweden', 'SE', true],
  ['US-IL-1', 'Illinois 1', 'North America, United States', 'US', true],
  ['EUR-IS-1', 'Iceland 1', 'Europe, Iceland', 'IS', true],
  ['EU-CZ-1', 'Czechia 1', 'Europe, Czech Republic', 'CZ', true],
  ['US-TX-3', 'Texas 3', 'North America, United States', 'US', true],
  ['EUR-IS-2', 'Iceland 2', 'Europe, Iceland', 'IS', true],
  ['US-KS-2', 'Kansas 2', 'North America, United States', 'US', true],
  ['US-GA-2', 'Georgia 2', 'North America, United States', 'US', true],
  ['US-WA-1', 'Washington 1', 'North America, United States', 'US', true],
  ['US-TX-1', 'Texas 1', 'North America, United States', 'US', false],
  ['CA-MTL-3', 'Montreal 3', 'North America, Canada', 'CA', true],
  ['EU-NL-1', 'Netherlands 1', 'Europe, Netherlands', 'NL', true],
  ['US-TX-4', 'Texas 4', 'North America, United States', 'US', true],
  ['US-CA-2', 'California 2', 'North America, United States', 'US', true],
  ['US-NC-1', 'North Carolina 1', 'North America, United States', 'US', true],
  ['OC-AU-1', 'Australia 1', 'Oceania, Australia', 'AU', true],
  ['US-DE-1', 'Delaware 1', 'North America, United States', 'US', true],
  ['EUR-IS-3', 'Iceland 3', 'Europe, Iceland', 'IS', false],
  ['CA-MTL-2', 'Montreal 2', 'North America, Canada', 'CA', true],
  ['AP-JP-1', 'Japan 1', 'Asia-Pacific, Japan', 'JP', true],
  ['EUR-NO-1', 'Norway 1', 'Europe, Norway', 'NO', true],
  ['EU-FR-1', 'France 1', 'Europe, France', 'FR', true],
  ['US-KS-3', 'Kansas 3', 'North America, United States', 'US', true],
  ['US-GA-1', 'Georgia 1', 'North America, United States', 'US', true],
];

/** The 26 data center ids of the v1 API, in the API's default order. */
export const DATA_CENTER_IDS: readonly string[] = ROWS.map(([id]) => id);

/** Built-in data centers. */
export const DEFAULT_DATA_CENTERS: readonly DataCenterEntry[] = ROWS.map(
  ([id, name, location, countryCode, storage]) => ({
    id,
    name,
    location,
    countryCode,
    storageSupport: storage,
    highPerformanceStorage: false,
    listed: true,
  }),
);
