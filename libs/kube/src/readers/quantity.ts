const SUFFIXES: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$/;

/**
 * A Kubernetes resource quantity ("7500m", "64Gi", "1e3", "128974848") as a number, or undefined when it does not
 * parse. Precision is a double's, which is plenty for node capacities.
 */
export function parseQuantity(quantity: string | number | undefined | null): number | undefined {
  if (typeof quantity === 'number') return quantity;
  if (typeof quantity !== 'string') return undefined;
  const match = QUANTITY.exec(quantity.trim());
  if (!match) return undefined;
  const [, number, exponent, suffix] = match;
  const value = Number(number);
  if (exponent) return value * 10 ** Number(exponent.slice(1));
  return value * (SUFFIXES[suffix ?? ''] ?? 1);
}
