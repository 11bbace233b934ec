/** One finished Kubernetes API request, as metrics count it. */
export interface KubeRequestRecord {
  /** Kubernetes verb: `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`. */
  verb: string;
  /** Resource (plural, e.g. `pods`), with its subresource when there is one (`pods/status`, `pods/log`). */
  resource: string;
  /** The HTTP status code answered, or `error` when no answer came (connection refused, reset, timeout). */
  code: string;
}

/**
 * Told about Kubernetes API traffic (for metrics; libs/kube does not own the metrics library). Requests of the typed
 * clients and of the lean create are recorded when they are answered; a watch when it ends (its code is its answer's:
 * `200` for a watch that was streaming, the refusal's status, or `error`). `watchRestart` is called each time an
 * informer (watchResource) restarts after a failure.
 */
export interface KubeObserver {
  request(record: KubeRequestRecord): void;
  watchRestart(resource: string): void;
}

let buildingObserver: KubeObserver | undefined;

/**
 * Runs `build` (which creates Kubernetes clients, e.g. a driver) with `observer` as the observer of every client it
 * creates without one of its own; clients created before or after are not observed.
 */
export function withKubeObserver<T>(observer: KubeObserver | undefined, build: () => T): T {
  const previous = buildingObserver;
  buildingObserver = observer;
  try {
    return build();
  } finally {
    buildingObserver = previous;
  }
}

/** The observer of the {@link withKubeObserver} call under way, if any. */
export function defaultKubeObserver(): KubeObserver | undefined {
  return buildingObserver;
}

const NAMED_VERBS: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'patch' };

/**
 * The verb and resource of a request to an API path: `/api/v1/namespaces/ns/pods/p/status` is `pods/status`,
 * `/apis/apps/v1/deployments` is `deployments`. A GET of a collection is a `list` (`watch` when `watch=true`), of one
 * object a `get`; a DELETE of a collection is a `deletecollection`.
 */
export function describeRequest(method: string, url: string): Omit<KubeRequestRecord, 'code'> {
  const { pathname, searchParams } = new URL(url, 'http://kube.invalid');
  const parts = pathname.split('/').filter((part) => part !== '');
  // /api/<version>/... or /apis/<group>/<version>/...
  const rest = parts.slice(parts[0] === 'apis' ? 3 : 2);
  const scoped = rest[0] === 'namespaces' && rest.length > 2 ? rest.slice(2) : rest;
  const [resource = 'unknown', name, subresource] = scoped;
  const verb = verbOf(method, name !== undefined, searchParams.get('watch') === 'true');
  return { verb, resource: subresource ? `${resource}/${subresource}` : resource };
}

function verbOf(method: string, named: boolean, watch: boolean): string {
  if (method === 'GET') {
    if (watch) return 'watch';
    return named ? 'get' : 'list';
  }
  if (method === 'DELETE') return named ? 'delete' : 'deletecollection';
  return NAMED_VERBS[method] ?? method.toLowerCase();
}

/** The status code of a failed request's error (an ApiException's `code`, a watch refusal's `statusCode`). */
export function codeOfError(error: unknown): string {
  const candidate = error as { code?: unknown; statusCode?: unknown } | undefined;
  const status = candidate?.statusCode ?? candidate?.code;
  return typeof status === 'number' && status >= 100 && status < 600 ? String(status) : 'error';
}

const watchObservers = new WeakMap<object, KubeObserver>();

/** Ties an observer to a watch client, so the informers built on it (watchResource) report their restarts. */
export function observeWatch(watch: object, observer: KubeObserver | undefined): void {
  if (observer) watchObservers.set(watch, observer);
}

/** The observer of a watch client from createKubeClients, if it has one. */
export function observerOfWatch(watch: object): KubeObserver | undefined {
  return watchObservers.get(watch);
}
