/**
 * False for an id no row can have: Postgres text cannot hold U+0000, and querying with one fails in the
 * database, so a path id carrying it is answered as not found instead.
 */
export function canExist(id: string): boolean {
  return !id.includes('\u0000');
}
