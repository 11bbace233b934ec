// Two sides of a ratio measured in alternating slices. A shared machine's speed drifts from one minute to the next, and
// a side measured wholly after the other can land in a slower minute; in slices taken in the order A B B A A B …, both
// sides see the same mix of fast and slow moments, and their sums compare like with like.

/** Each side's slice results, in the order they ran. */
export interface Interleaved<T> {
  baseline: T[];
  runplane: T[];
}

/** Runs `slices` slices of each side, alternating A B B A A B …, one slice at a time. */
export async function interleave<T>(
  slices: number,
  baseline: () => Promise<T>,
  runplane: () => Promise<T>,
): Promise<Interleaved<T>> {
  const results: Interleaved<T> = { baseline: [], runplane: [] };
  for (let slice = 0; slice < slices; slice += 1) {
    const order = slice % 2 === 0 ? (['baseline', 'runplane'] as const) : (['runplane', 'baseline'] as const);
    for (const side of order) results[side].push(await (side === 'baseline' ? baseline() : runplane()));
  }
  return results;
}

/** An even number of slices (so each side goes first equally often), at least 2, covering `total` in `per` units. */
export function sliceCount(total: number, per: number): number {
  return Math.max(2, 2 * Math.ceil(total / per / 2));
}
