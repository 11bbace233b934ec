import { parseQuantity } from './quantity';

describe('parseQuantity', () => {
  it.each([
    ['8', 8],
    ['7500m', 7.5],
    ['64Gi', 64 * 2 ** 30],
    ['1048576Ki', 2 ** 30],
    ['1.5G', 1.5e9],
    ['1e3', 1000],
    ['500Mi', 500 * 2 ** 20],
    ['100n', 1e-7],
    ['2k', 2000],
    [' 3 ', 3],
  ])('%s = %d', (text, value) => {
    expect(parseQuantity(text)).toBeCloseTo(value);
  });

  it('passes numbers through and rejects garbage', () => {
    expect(parseQuantity(4)).toBe(4);
    expect(parseQuantity('abc')).toBeUndefined();
    expect(parseQuantity('5Xi')).toBeUndefined();
    expect(parseQuantity(undefined)).toBeUndefined();
    expect(parseQuantity(null)).toBeUndefined();
  });
});
