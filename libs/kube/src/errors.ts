/**
 * Kubernetes HTTP status of a failed call, or undefined for errors that never reached the apiserver. API calls fail
 * with ApiException (`.code`); watches fail with an Error carrying `.statusCode`.
 */
export function kubeStatusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, statusCode } = error as { code?: unknown; statusCode?: unknown };
  if (typeof code === 'number') return code;
  if (typeof statusCode === 'number') return statusCode;
  return undefined;
}

/** The object does not exist (404). */
export function isNotFound(error: unknown): boolean {
  return kubeStatusOf(error) === 404;
}

/** The object already exists, or a write carried a stale resourceVersion (409). */
export function isConflict(error: unknown): boolean {
  return kubeStatusOf(error) === 409;
}

/** The requested resourceVersion is too old to watch from; relist (410). */
export function isGone(error: unknown): boolean {
  return kubeStatusOf(error) === 410;
}

/** One readable line for logs and status messages: the apiserver's Status message when there is one. */
export function kubeErrorMessage(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const body = (error as { body?: unknown }).body;
    const parsed = typeof body === 'string' ? safeJson(body) : body;
    const message = (parsed as { message?: unknown } | undefined)?.message;
    if (typeof message === 'string' && message.length > 0) return message;
  }
  return error instanceof Error ? error.message : String(error);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
