import {
  PatchStrategy,
  setHeaderOptions,
  type ConfigurationOptions,
  type KubernetesObject,
  type KubernetesObjectApi,
  type ObservableMiddleware,
} from '@kubernetes/client-node';

/**
 * Per-call options for a JSON merge patch (RFC 7386). client-node sends JSON Patch by default; pass these as the
 * second argument of a `patch*` call. They append a header middleware, so the client's rate limiter stays in place.
 */
export function mergePatchOptions(): ConfigurationOptions<ObservableMiddleware> {
  return setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
}

/** Per-call options for a strategic merge patch (lists merged by their patch keys, e.g. containers by name). */
export function strategicMergePatchOptions(): ConfigurationOptions<ObservableMiddleware> {
  return setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
}

/**
 * Server-side apply of a whole object: creates it or updates the fields `fieldManager` owns. `force` takes over
 * fields another manager set (what a reconciler that is the source of truth wants). The object needs apiVersion,
 * kind, metadata.name and (for namespaced kinds) metadata.namespace.
 */
export function applyObject<T extends KubernetesObject>(
  objects: KubernetesObjectApi,
  object: T,
  fieldManager: string,
  force = true,
): Promise<T> {
  return objects.patch(object, undefined, undefined, fieldManager, force, PatchStrategy.ServerSideApply);
}
