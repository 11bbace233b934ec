/** Pairs a flat [ep, id, ep, id, ...] script reply. */
export function pairs(flat: string[]): { endpointId: string; id: string }[] {
  const out: { endpointId: string; id: string }[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push({ endpointId: flat[i] as string, id: flat[i + 1] as string });
  return out;
}
