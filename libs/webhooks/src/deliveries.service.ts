import {
  NotFoundError,
  ValidationError,
  type WebhookAttemptDto,
  type WebhookDeliveriesQuery,
  type WebhookDeliveryPageDto,
} from '@runplane/contracts';
import type { WebhookAttempt } from '@runplane/db';
import type { DeliveryCursor, DeliveryWithAttempts, WebhookDeliveriesRepository } from './deliveries.repository';

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

function toAttemptDto(row: WebhookAttempt): WebhookAttemptDto {
  return {
    attempt: row.attempt,
    url: row.url,
    statusCode: row.statusCode,
    durationMs: row.durationMs,
    error: row.error,
    responseExcerpt: row.responseExcerpt,
    startedAt: row.startedAt.toISOString(),
    finishedAt: iso(row.finishedAt),
  };
}

function toDeliveryDto(row: DeliveryWithAttempts): WebhookDeliveryPageDto['deliveries'][number] {
  return {
    id: row.id,
    endpointId: row.endpointId,
    jobId: row.jobId,
    url: row.url,
    status: row.status,
    attemptCount: row.attempts,
    maxAttempts: row.maxAttempts,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    nextAttemptAt: iso(row.nextAttemptAt),
    deliveredAt: iso(row.deliveredAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    attempts: row.attemptsMade.map(toAttemptDto),
  };
}

/** Cursor text: base64url of `<createdAt ms>.<id>` of the last delivery on the page. */
export function encodeCursor(cursor: DeliveryCursor): string {
  return Buffer.from(`${cursor.createdAt.getTime()}.${cursor.id}`).toString('base64url');
}

/** Parses a cursor from `encodeCursor`; a ValidationError naming `cursor` otherwise. */
export function decodeCursor(text: string): DeliveryCursor {
  const match = /^(\d{1,15})\.([a-z0-9]{1,64})$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (!match) throw new ValidationError('cursor: not a cursor from a previous page');
  return { createdAt: new Date(Number(match[1])), id: match[2]! };
}

/** Reads of an endpoint's webhook deliveries for its account. */
export class WebhookDeliveriesService {
  constructor(private readonly deliveries: WebhookDeliveriesRepository) {}

  /**
   * One page, newest first. 404 unless the account owns the endpoint, or owned it: deliveries outlive a deleted
   * endpoint and stay listable.
   */
  async list(accountId: string, endpointId: string, query: WebhookDeliveriesQuery): Promise<WebhookDeliveryPageDto> {
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const owner = await this.deliveries.accountOfEndpoint(endpointId);
    if (owner !== accountId && !(owner === null && (await this.deliveries.hasAny(accountId, endpointId)))) {
      throw new NotFoundError('Endpoint');
    }
    const rows = await this.deliveries.listByEndpoint(accountId, endpointId, query.limit + 1, after);
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      deliveries: page.map(toDeliveryDto),
      nextCursor: rows.length > query.limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
    };
  }
}
