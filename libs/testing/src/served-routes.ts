/**
 * `METHOD /path` of every route a Fastify app serves, read from its `printRoutes()` tree, in Fastify's own
 * path syntax (`/v2/:endpointId/status/:jobId`, `*` for a wildcard). HEAD twins Fastify adds to GET routes are
 * left out: a test enumerating routes from this list covers what the app registered, not a list kept by hand.
 * Give it the default tree: `printRoutes({ commonPrefix: false })` prints a wildcard route without its prefix.
 */
export function servedRoutes(tree: string): string[] {
  const parents: string[] = [];
  const served: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+)(?: \(([^)]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    const path = (parents[depth - 1] ?? '') + (match[2] ?? '');
    parents.length = depth;
    parents[depth] = path;
    const methods = (match[3] ?? '').split(', ').filter((method) => method !== '');
    for (const method of methods) if (method !== 'HEAD' || !methods.includes('GET')) served.push(`${method} ${path}`);
  }
  return served;
}
