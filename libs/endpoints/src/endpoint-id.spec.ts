import { isReservedEndpointId, newEndpointId, RESERVED_ENDPOINT_IDS } from './endpoint-id';

describe('endpoint ids', () => {
  it('reserves every top-level management segment of the v2 API, in any case', () => {
    for (const segment of [
      'pods',
      'serverless',
      'templates',
      'network-volumes',
      'registries',
      'catalog',
      'billing',
      'account',
      'clusters',
      'openapi.json',
    ]) {
      expect(RESERVED_ENDPOINT_IDS).toContain(segment);
      expect(isReservedEndpointId(segment.toUpperCase())).toBe(true);
    }
    expect(isReservedEndpointId('4ub3w7a1x0c2pq')).toBe(false);
  });

  it('never hands out a reserved segment, even when the generator produces one', () => {
    const produced = ['pods', 'Serverless', 'openapi.json', 'x7k2m9q4w1e8rt'];
    expect(newEndpointId(() => produced.shift() as string)).toBe('x7k2m9q4w1e8rt');
    expect(produced).toEqual([]);
  });

  it('generates lowercase alphanumeric ids by default', () => {
    const ids = Array.from({ length: 1000 }, () => newEndpointId());
    for (const id of ids) {
      expect(id).toMatch(/^[a-z0-9]{14}$/);
      expect(isReservedEndpointId(id)).toBe(false);
    }
  });
});
