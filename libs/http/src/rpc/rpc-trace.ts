import { injectTraceContext, withSpan, withTraceContext } from '@runplane/observability';

/**
 * An RPC message with the sender's W3C trace context in its `trace` field. Message schemas that strip unknown keys
 * (zod's `z.object`) read the same message without it, so a sender and a receiver of different versions still agree.
 */
export type TracedRpcMessage<M extends object> = M & { trace: Record<string, string> };

function traceOf(message: unknown): Record<string, string> | undefined {
  if (typeof message !== 'object' || message === null || !('trace' in message)) return undefined;
  const { trace } = message as { trace: unknown };
  if (typeof trace !== 'object' || trace === null) return undefined;
  const entries = Object.entries(trace).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  return Object.fromEntries(entries);
}

/** Runs an RPC call in a client span `name`, handing `call` the message with that span's trace context. */
export function callTraced<M extends object, R>(
  name: string,
  message: M,
  call: (traced: TracedRpcMessage<M>) => Promise<R>,
): Promise<R> {
  return withSpan(name, () => call({ ...message, trace: injectTraceContext() }), undefined, 'client');
}

/** Runs an RPC handler in a server span `name` of the caller's trace (the context {@link callTraced} sent). */
export function handleTraced<R>(name: string, message: unknown, handle: () => Promise<R>): Promise<R> {
  return withTraceContext(traceOf(message), () => withSpan(name, handle, undefined, 'server'));
}
