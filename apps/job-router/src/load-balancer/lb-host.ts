/** Endpoint ids are lowercase letters and digits (ids of @runplane/db); DNS is case-insensitive. */
const ENDPOINT_LABEL = /^[a-z0-9]{1,64}$/;

/**
 * The endpoint a load-balancing request names in its Host (`<endpointId>.<domain>`, any port), or null when the Host
 * is not one of `domain`'s endpoint hosts.
 */
export function endpointIdOfHost(host: string | undefined, domain: string): string | null {
  if (!host) return null;
  const name = host.replace(/:\d+$/, '').replace(/\.$/, '').toLowerCase();
  const suffix = `.${domain}`;
  if (!name.endsWith(suffix)) return null;
  const label = name.slice(0, -suffix.length);
  return ENDPOINT_LABEL.test(label) ? label : null;
}
