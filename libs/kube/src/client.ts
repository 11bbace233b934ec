import {
  CoordinationV1Api,
  CoreV1Api,
  createConfiguration,
  type HttpLibrary,
  IsomorphicFetchHttpLibrary,
  KubeConfig,
  KubernetesObjectApi,
  SchedulingV1Api,
  Observable,
  ServerConfiguration,
  Watch,
  type Configuration,
  type Middleware,
} from '@kubernetes/client-node';
import { type JsonCreate, jsonCreate } from './json-create';
import { codeOfError, defaultKubeObserver, describeRequest, type KubeObserver, observeWatch } from './observer';
import { KubeRateLimiter, type RateLimitOptions } from './rate-limiter';

/** Where the cluster credentials come from: a kubeconfig file, its YAML text, or the pod's service account. */
export type KubeConfigSource = { kubeconfigPath: string } | { kubeconfig: string } | { inCluster: true };

/** Options of createKubeClients: one credential source plus the client-side request budget. */
export type CreateKubeClientsOptions = KubeConfigSource &
  RateLimitOptions & {
    /** Sent as User-Agent so apiserver audit logs show which Runplane process called. */
    userAgent?: string;
    /** Told about every request and informer restart (metrics); that of the withKubeObserver call under way when omitted. */
    observer?: KubeObserver;
  };

/** The typed API objects Runplane uses, all sharing one rate limiter. */
export interface KubeClients {
  kubeConfig: KubeConfig;
  core: CoreV1Api;
  coordination: CoordinationV1Api;
  scheduling: SchedulingV1Api;
  /** Generic create/patch/read by apiVersion and kind (server-side apply goes through this). */
  objects: KubernetesObjectApi;
  /** Watch client whose (re)connects take a token from the same limiter. */
  watch: Watch;
  /** Lean create (POST to a collection path) for objects made in bulk; same limiter. */
  createJson: JsonCreate;
  limiter: KubeRateLimiter;
  /** Fails requests still waiting for a token; in-flight requests and watches are ended by their owners. */
  close(): void;
}

/** What client-node's (private) per-request dispatcher factory takes and returns. */
type DispatcherFactory = (
  cluster: ReturnType<KubeConfig['getCurrentCluster']>,
  options: Parameters<KubeConfig['createDispatcherOptions']>[1],
) => unknown;

/**
 * A key of a dispatcher's options. Its CA, certificate and key are Buffers read anew for every request: read as
 * base64, not through JSON.stringify, which writes each byte as a number (about 100 µs a request for three PEMs).
 */
function optionsKey(value: unknown): string {
  if (Buffer.isBuffer(value)) return `b64:${value.toString('base64')}`;
  if (Array.isArray(value)) return `[${value.map(optionsKey).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const fields = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${fields.map(([name, field]) => `${JSON.stringify(name)}:${optionsKey(field)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/**
 * client-node 2.x builds a new undici Agent for every request, so every API call opens a new TLS connection (a
 * handshake on both sides, no keep-alive). Reuse one dispatcher per distinct TLS configuration instead. Returns a
 * function that closes the reused dispatchers.
 */
function reuseConnections(kc: KubeConfig): () => void {
  const target = kc as unknown as { createDispatcher: DispatcherFactory };
  const create = target.createDispatcher.bind(kc);
  const cache = new Map<string, unknown>();
  target.createDispatcher = (cluster, options) => {
    const key = optionsKey(kc.createDispatcherOptions(cluster, options));
    if (!cache.has(key)) cache.set(key, create(cluster, options));
    return cache.get(key);
  };
  return () => {
    for (const dispatcher of cache.values())
      void (dispatcher as { close?: () => Promise<void> } | undefined)?.close?.().catch(() => undefined);
    cache.clear();
  };
}

/** Load a KubeConfig from exactly one source. */
export function loadKubeConfig(source: KubeConfigSource): KubeConfig {
  const kc = new KubeConfig();
  if ('kubeconfigPath' in source) kc.loadFromFile(source.kubeconfigPath);
  else if ('kubeconfig' in source) kc.loadFromString(source.kubeconfig);
  else kc.loadFromCluster();
  if (!kc.getCurrentCluster()) throw new Error('The kubeconfig has no current cluster');
  return kc;
}

/**
 * A Watch that waits for a rate-limit token before every (re)connect, so an informer restarting in a loop cannot
 * flood the apiserver. When the limiter is closed the watch ends at once through `done`.
 */
class RateLimitedWatch extends Watch {
  constructor(
    config: KubeConfig,
    private readonly limiter: KubeRateLimiter,
    private readonly observer: KubeObserver | undefined,
  ) {
    super(config);
  }

  override async watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    try {
      await this.limiter.acquire();
    } catch (error) {
      const controller = new AbortController();
      controller.abort();
      done(error);
      return controller;
    }
    const observer = this.observer;
    if (!observer) return super.watch(path, queryParams, callback, done);
    // Recorded when the watch ends: `200` if it was answered (a clean end or events came), else the refusal's status.
    let answered = false;
    const { resource } = describeRequest('GET', path);
    const counted = (phase: string, apiObj: unknown, watchObj?: unknown): void => {
      answered = true;
      callback(phase, apiObj, watchObj);
    };
    return super.watch(path, queryParams, counted, (err) => {
      // A watch its informer stopped before any answer was no request the apiserver answered or refused.
      const aborted = (err as { name?: unknown } | null)?.name === 'AbortError';
      if (aborted && !answered) return done(err);
      const code = err === null || err === undefined || answered ? '200' : codeOfError(err);
      observer.request({ verb: 'watch', resource, code });
      done(err);
    });
  }
}

/** client-node's fetch library, telling `observer` about each request when it is answered or fails. */
function observedHttp(observer: KubeObserver | undefined): HttpLibrary {
  const fetchLibrary = new IsomorphicFetchHttpLibrary();
  if (!observer) return fetchLibrary;
  return {
    send: (request) => {
      const described = describeRequest(request.getHttpMethod(), request.getUrl());
      const answer = fetchLibrary.send(request).toPromise();
      answer.then(
        (response) => observer.request({ ...described, code: String(response.httpStatusCode) }),
        (error: unknown) => observer.request({ ...described, code: codeOfError(error) }),
      );
      return new Observable(answer);
    },
  };
}

function limitedConfiguration(
  kc: KubeConfig,
  limiter: KubeRateLimiter,
  userAgent: string,
  observer: KubeObserver | undefined,
): Configuration {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('The kubeconfig has no current cluster');
  const throttle: Middleware = {
    pre: async (context) => {
      await limiter.acquire();
      context.setHeaderParam('User-Agent', userAgent);
      return context;
    },
    post: async (context) => context,
  };
  // Same wiring as KubeConfig.makeApiClient, plus the limiter; per-call options that *append* middleware
  // (setHeaderOptions, the patch helpers here) keep it.
  return createConfiguration({
    baseServer: new ServerConfiguration(cluster.server, {}),
    authMethods: { default: kc },
    httpApi: observedHttp(observer),
    promiseMiddleware: [throttle],
  });
}

/** Typed Kubernetes API clients whose every request (watches included) passes one QPS/burst token bucket. */
export function createKubeClients(options: CreateKubeClientsOptions): KubeClients {
  const kubeConfig = loadKubeConfig(options);
  const closeConnections = reuseConnections(kubeConfig);
  const limiter = new KubeRateLimiter({ qps: options.qps, burst: options.burst });
  const userAgent = options.userAgent ?? 'runplane';
  const observer = options.observer ?? defaultKubeObserver();
  const configuration = limitedConfiguration(kubeConfig, limiter, userAgent, observer);
  const watch = new RateLimitedWatch(kubeConfig, limiter, observer);
  observeWatch(watch, observer);
  return {
    kubeConfig,
    core: new CoreV1Api(configuration),
    coordination: new CoordinationV1Api(configuration),
    scheduling: new SchedulingV1Api(configuration),
    objects: new KubernetesObjectApi(configuration),
    watch,
    createJson: jsonCreate(kubeConfig, limiter, { userAgent, observer }),
    limiter,
    close: () => {
      limiter.close();
      closeConnections();
    },
  };
}
