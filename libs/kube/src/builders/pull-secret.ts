import type { V1Secret } from '@kubernetes/client-node';
import { baseLabels, LABELS } from '../labels';

/** A container registry auth as an image pull secret. */
export interface PullSecretInput {
  name: string;
  namespace: string;
  accountId: string;
  registryAuthId: string;
  username: string;
  /** Plaintext; only ever lives in the Secret, never in labels or logs. */
  password: string;
  /** Registry host; derived from `image` when omitted. */
  registry?: string;
  image?: string;
}

/** The key kubelet and Docker use for Docker Hub credentials. */
export const DOCKER_HUB_KEY = 'https://index.docker.io/v1/';

/**
 * Registry host of an image reference, with Docker's rule: the first path component is a registry only if it
 * contains a dot or a colon or is `localhost` (`ghcr.io/a/b`, `registry:5000/x`); otherwise the image is on Docker Hub.
 */
export function registryOfImage(image: string): string {
  const slash = image.indexOf('/');
  if (slash < 0) return DOCKER_HUB_KEY;
  const first = image.slice(0, slash);
  const isHost = first.includes('.') || first.includes(':') || first === 'localhost';
  if (!isHost || first === 'docker.io' || first === 'index.docker.io') return DOCKER_HUB_KEY;
  return first;
}

/** Secret of type kubernetes.io/dockerconfigjson with `{"auths":{registry:{username,password,auth}}}`. */
export function buildPullSecret(input: PullSecretInput): V1Secret {
  const registry = input.registry ?? (input.image ? registryOfImage(input.image) : undefined);
  if (!registry) throw new RangeError('A pull secret needs a registry or an image to derive it from');
  const auth = Buffer.from(`${input.username}:${input.password}`).toString('base64');
  const config = { auths: { [registry]: { username: input.username, password: input.password, auth } } };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/dockerconfigjson',
    metadata: {
      name: input.name,
      namespace: input.namespace,
      labels: { ...baseLabels(input.accountId), [LABELS.registryAuthId]: input.registryAuthId },
    },
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config)).toString('base64') },
  };
}
