/** Why a usage event was refused for good (retrying it can never succeed). */
export type UsageRejection = 'INVALID_PAYLOAD' | 'EVENT_ID_CONFLICT' | 'ACCOUNT_MISMATCH' | 'UNKNOWN_ACCOUNT';

/** A usage event the aggregator refuses: nothing of it was written. */
export class UsageEventRejectedError extends Error {
  override readonly name = 'UsageEventRejectedError';

  constructor(
    readonly reason: UsageRejection,
    readonly eventId: string,
    message: string,
  ) {
    super(`usage event ${eventId} rejected (${reason}): ${message}`);
  }
}
