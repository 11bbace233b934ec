import { request } from 'node:https';
import { parse } from 'yaml';

/**
 * A tiny dependency-free Kubernetes REST client for test setup (nodes, namespaces, probes). It keeps
 * @runplane/testing independent of the production client in @runplane/kube, which is the code under test.
 */

/** Where the API server is and how to authenticate: a bearer token over TLS pinned to the server's CA. */
export interface KubeConnection {
  /** e.g. https://127.0.0.1:6443 */
  server: string;
  token: string;
  /** PEM of the CA that signed the serving certificate. */
  caPem: string;
}

/** A non-2xx answer of the API server; `status` is the HTTP status (409 = already exists). */
export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    method: string,
    path: string,
  ) {
    super(`${method} ${path} answered ${status}: ${body.slice(0, 500)}`);
    this.name = 'KubeApiError';
  }
}

type PatchType = 'merge' | 'strategic' | 'json';
const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
};

interface KubeconfigDocument {
  'current-context'?: string;
  contexts?: { name: string; context: { cluster: string; user: string } }[];
  clusters?: { name: string; cluster: { server: string; 'certificate-authority-data'?: string } }[];
  users?: { name: string; user: { token?: string } }[];
}

/** Reads server, token and CA of the current context of a kubeconfig (token auth, as the test environment writes). */
export function connectionFromKubeconfig(kubeconfig: string): KubeConnection {
  const doc = parse(kubeconfig) as KubeconfigDocument;
  const context = doc.contexts?.find((entry) => entry.name === doc['current-context'])?.context;
  const cluster = doc.clusters?.find((entry) => entry.name === context?.cluster)?.cluster;
  const user = doc.users?.find((entry) => entry.name === context?.user)?.user;
  const ca = cluster?.['certificate-authority-data'];
  if (cluster === undefined || user?.token === undefined || ca === undefined) {
    throw new Error('kubeconfig: the current context needs a server with certificate-authority-data and a token user');
  }
  return { server: cluster.server, token: user.token, caPem: Buffer.from(ca, 'base64').toString('utf8') };
}

/** JSON over HTTPS against one API server. Paths are API paths such as `/api/v1/nodes`. */
export class KubeTestClient {
  constructor(readonly connection: KubeConnection) {}

  /** GET and parse JSON. */
  get<T>(path: string): Promise<T> {
    return this.json<T>('GET', path);
  }

  /** POST a new object. */
  create<T>(path: string, body: unknown): Promise<T> {
    return this.json<T>('POST', path, body);
  }

  /** PUT an object (or a subresource such as a namespace's `finalize`). */
  replace<T>(path: string, body: unknown): Promise<T> {
    return this.json<T>('PUT', path, body);
  }

  /** PATCH an object (`merge` by default). */
  patch<T>(path: string, body: unknown, type: PatchType = 'merge'): Promise<T> {
    return this.json<T>('PATCH', path, body, PATCH_CONTENT_TYPES[type]);
  }

  /** DELETE an object or a collection; a missing object is not an error. */
  async delete(path: string): Promise<void> {
    try {
      await this.raw('DELETE', path);
    } catch (err) {
      if (!(err instanceof KubeApiError && err.status === 404)) throw err;
    }
  }

  /** The body of a GET as text (health endpoints such as /readyz answer `ok`). */
  async text(path: string): Promise<string> {
    return this.raw('GET', path);
  }

  private async json<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    return JSON.parse(await this.raw(method, path, body, contentType)) as T;
  }

  private raw(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<string> {
    const url = new URL(path, this.connection.server);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method,
          ca: this.connection.caPem,
          headers: {
            authorization: `Bearer ${this.connection.token}`,
            accept: 'application/json',
            ...(payload === undefined
              ? {}
              : { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) resolve(text);
            else reject(new KubeApiError(status, text, method, url.pathname));
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }
}
