/**
 * How deliveries are retried. RunPod calls a webhook up to 3 times, 10 s apart, and counts only HTTP 200 as
 * delivered; Runplane counts any 2xx as delivered. Every value is a deployment setting of the dispatcher.
 */
export interface DeliveryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Wait between the end of a failed attempt and the start of the next. */
  spacingMs: number;
  /** Longest one attempt may take, connection and response included. */
  timeoutMs: number;
}

/** RunPod's schedule: 3 attempts, 10 s apart; 10 s per attempt. */
export const DEFAULT_DELIVERY_POLICY: DeliveryPolicy = { maxAttempts: 3, spacingMs: 10_000, timeoutMs: 10_000 };

/** What one attempt came to. */
export type AttemptOutcome =
  /** The receiver answered (any status); `excerpt` is at most 512 bytes of its body. */
  | { kind: 'response'; statusCode: number; excerpt: string; durationMs: number }
  /** No answer: connection refused or reset, DNS failure, timeout. */
  | { kind: 'error'; error: string; durationMs: number }
  /** The URL may not be called at all (scheme or address); nothing was sent. */
  | { kind: 'refused'; reason: string };

/** What follows an attempt. */
export type NextStep = { kind: 'succeeded' } | { kind: 'failed' } | { kind: 'retry'; attempt: number; at: Date };

/** Any 2xx is a delivery (RunPod itself only accepts 200; a 204 or 202 receiver is common and means "got it"). */
export function isDelivered(outcome: AttemptOutcome): boolean {
  return outcome.kind === 'response' && outcome.statusCode >= 200 && outcome.statusCode <= 299;
}

/** The error text recorded for a failed attempt, or null for a delivered one. */
export function failureOf(outcome: AttemptOutcome): string | null {
  switch (outcome.kind) {
    case 'response':
      return isDelivered(outcome) ? null : `HTTP ${outcome.statusCode}`;
    case 'error':
      return outcome.error;
    case 'refused':
      return `refused: ${outcome.reason}`;
    default:
      return assertNever(outcome);
  }
}

/** Delivered → succeeded; refused → failed at once; any other failure → retry after the spacing while attempts remain. */
export function nextStep(policy: DeliveryPolicy, attempt: number, outcome: AttemptOutcome, now: Date): NextStep {
  if (isDelivered(outcome)) return { kind: 'succeeded' };
  if (outcome.kind === 'refused' || attempt >= policy.maxAttempts) return { kind: 'failed' };
  return { kind: 'retry', attempt: attempt + 1, at: new Date(now.getTime() + policy.spacingMs) };
}

function assertNever(value: never): never {
  throw new Error(`Unexpected attempt outcome ${JSON.stringify(value)}`);
}
