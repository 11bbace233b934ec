import { ListWatch, type KubernetesListObject, type KubernetesObject, type Watch } from '@kubernetes/client-node';
import { DEFAULT_BACKOFF, ExponentialBackoff, type BackoffOptions } from './backoff';
import { describeRequest, observerOfWatch } from './observer';

/** Selectors passed to the list call; the watch uses the same ones. */
export interface ListQuery {
  labelSelector?: string;
  fieldSelector?: string;
}

/**
 * What to watch and what to do with it. Handlers must be idempotent: after a restart or a relist (410 Gone) the
 * informer replays `onUpdate` for every object whose resourceVersion changed and `onDelete` for every object that
 * vanished meanwhile, and an `onAdd` may repeat an object seen before the restart.
 */
export interface WatchResourceOptions<T extends KubernetesObject> {
  /** The rate-limited watch from createKubeClients. */
  watch: Watch;
  /** Collection path, e.g. `/api/v1/namespaces/ns/pods` or `/api/v1/nodes`. */
  path: string;
  /** List the same collection; must pass the query's selectors through, e.g. `(q) => core.listNode(q)`. */
  list: (query: ListQuery) => Promise<KubernetesListObject<T>>;
  labelSelector?: string;
  fieldSelector?: string;
  onAdd?: (object: T) => void;
  onUpdate?: (object: T) => void;
  onDelete?: (object: T) => void;
  /** Told about every failure and the delay before the restart (for logs and metrics). */
  onError?: (error: unknown, retryInMs: number) => void;
  /** A handler threw; the informer goes on (otherwise client-node would swallow it silently). */
  onHandlerError?: (error: unknown, object: T) => void;
  backoff?: Partial<BackoffOptions>;
  /**
   * Every this many ms after the first list, hand every cached object to `onUpdate` again (client-go's resync),
   * so a reconciler that dropped work catches up without waiting for the next change. Off when omitted.
   */
  resyncMs?: number;
}

/** A running list+watch with its local cache. */
export interface ResourceWatch<T extends KubernetesObject> {
  /** Resolves after the first successful list has been delivered to the handlers; rejects if stopped first. */
  readonly synced: Promise<void>;
  hasSynced(): boolean;
  /** Cached objects, optionally of one namespace. */
  list(namespace?: string): readonly T[];
  get(name: string, namespace?: string): T | undefined;
  /** Restarts performed after failures so far. */
  readonly restarts: number;
  /** Stop watching and cancel a pending restart. */
  stop(): Promise<void>;
}

/** The parts of a client-node informer the supervisor drives. */
export interface SupervisedInformer {
  on(event: 'error', callback: (error?: unknown) => void): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Keeps an informer running. client-node's ListWatch relists by itself on 410 Gone and re-watches after a clean
 * close, but after any other error it emits `error` and stops for good. The supervisor restarts it with exponential
 * backoff; only one restart is ever pending however many errors arrive, and a run that stayed up for
 * `healthyAfterMs` resets the backoff.
 */
export class InformerSupervisor {
  private readonly backoff: ExponentialBackoff;
  private readonly healthyAfterMs: number;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private startedAt = 0;
  private restartCount = 0;

  constructor(
    private readonly informer: SupervisedInformer,
    private readonly onError: (error: unknown, retryInMs: number) => void = () => undefined,
    backoff: Partial<BackoffOptions> = {},
    /** Called as each restart begins (the watch client's observer counts them). */
    private readonly onRestart: () => void = () => undefined,
  ) {
    const options = { ...DEFAULT_BACKOFF, ...backoff };
    this.backoff = new ExponentialBackoff(options);
    this.healthyAfterMs = options.healthyAfterMs;
    informer.on('error', (error) => this.failed(error));
  }

  /** Restarts performed so far. */
  get restarts(): number {
    return this.restartCount;
  }

  /** Whether a restart is waiting for its backoff delay. */
  get restartPending(): boolean {
    return this.timer !== undefined;
  }

  start(): void {
    this.stopped = false;
    this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.informer.stop();
  }

  private run(): void {
    this.startedAt = Date.now();
    this.informer.start().catch((error: unknown) => this.failed(error));
  }

  private failed(error: unknown): void {
    if (this.stopped || this.timer) return;
    if (Date.now() - this.startedAt >= this.healthyAfterMs) this.backoff.reset();
    const delay = this.backoff.next();
    this.onError(error, delay);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopped) return;
      this.restartCount += 1;
      this.onRestart();
      this.run();
    }, delay);
  }
}

function guarded<T extends KubernetesObject>(
  handler: ((object: T) => void) | undefined,
  onHandlerError: WatchResourceOptions<T>['onHandlerError'],
): (object: T) => void {
  return (object) => {
    try {
      handler?.(object);
    } catch (error) {
      onHandlerError?.(error, object);
    }
  };
}

/** The `synced` promise of a watch: resolved once the first list reached the handlers, rejected if stopped first. */
class SyncSignal {
  done = false;
  readonly promise: Promise<void>;
  private settle!: { resolve: () => void; reject: (error: Error) => void };

  constructor() {
    this.promise = new Promise<void>((resolve, reject) => (this.settle = { resolve, reject }));
    this.promise.catch(() => undefined); // a watch stopped before syncing must not raise an unhandled rejection
  }

  /** Call when a list result is returned to ListWatch, which hands its items to the handlers synchronously. */
  listed(): void {
    if (!this.done) setImmediate(() => ((this.done = true), this.settle.resolve()));
  }

  abort(path: string): void {
    if (!this.done) this.settle.reject(new Error(`Watch of ${path} stopped before its first list`));
  }
}

/** A ListWatch of the collection whose first list settles `sync`, with the handlers attached and their errors kept in. */
function listWatchOf<T extends KubernetesObject>(
  options: WatchResourceOptions<T>,
  sync: SyncSignal,
): { informer: ListWatch<T>; onUpdate: (object: T) => void } {
  const query: ListQuery = {
    ...(options.labelSelector !== undefined ? { labelSelector: options.labelSelector } : {}),
    ...(options.fieldSelector !== undefined ? { fieldSelector: options.fieldSelector } : {}),
  };
  const list = async (): Promise<KubernetesListObject<T>> => {
    const result = await options.list(query);
    sync.listed();
    return result;
  };
  const informer = new ListWatch<T>(
    options.path,
    options.watch,
    list,
    false,
    options.labelSelector,
    options.fieldSelector,
  );
  const onUpdate = guarded(options.onUpdate, options.onHandlerError);
  informer.on('add', guarded(options.onAdd, options.onHandlerError));
  informer.on('update', onUpdate);
  informer.on('delete', guarded(options.onDelete, options.onHandlerError));
  return { informer, onUpdate };
}

/** Once synced, hands every cached object to `onUpdate` each `everyMs`; returns the function that stops it. */
function periodicResync<T extends KubernetesObject>(
  informer: ListWatch<T>,
  onUpdate: (object: T) => void,
  everyMs: number | undefined,
  sync: SyncSignal,
): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  if (everyMs !== undefined) {
    sync.promise.then(
      () => {
        if (!stopped) timer = setInterval(() => informer.list().forEach(onUpdate), everyMs);
      },
      () => undefined,
    );
  }
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/** Start a supervised list+watch of one collection (see WatchResourceOptions for the handler contract). */
export function watchResource<T extends KubernetesObject>(options: WatchResourceOptions<T>): ResourceWatch<T> {
  const sync = new SyncSignal();
  const { informer, onUpdate } = listWatchOf(options, sync);
  const observer = observerOfWatch(options.watch);
  const { resource } = describeRequest('GET', options.path);
  const supervisor = new InformerSupervisor(informer, options.onError, options.backoff, () =>
    observer?.watchRestart(resource),
  );
  supervisor.start();
  const stopResync = periodicResync(informer, onUpdate, options.resyncMs, sync);
  return {
    synced: sync.promise,
    hasSynced: () => sync.done,
    list: (namespace) => informer.list(namespace),
    get: (name, namespace) => informer.get(name, namespace),
    get restarts() {
      return supervisor.restarts;
    },
    stop: async () => {
      stopResync();
      await supervisor.stop();
      sync.abort(options.path);
    },
  };
}
