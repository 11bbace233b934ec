import {
  type DbClient,
  isUniqueViolation,
  newId,
  type WebhookAttempt,
  type WebhookDelivery,
  WebhookDeliveryStatus,
  withTransaction,
} from '@runplane/db';

/** A delivery to create (its id is generated here). */
export interface NewDelivery {
  accountId: string;
  endpointId: string;
  jobId: string;
  url: string;
  sourceKey: string;
  body: string;
  maxAttempts: number;
  nextAttemptAt: Date;
}

/** The result of one attempt, written to its row and summed up on the delivery. */
export interface FinishedAttempt {
  deliveryId: string;
  attempt: number;
  statusCode: number | null;
  durationMs: number | null;
  error: string | null;
  responseExcerpt: string | null;
  finishedAt: Date;
  status: WebhookDeliveryStatus;
  nextAttemptAt: Date | null;
}

/** A delivery with its attempts, oldest attempt first. */
export type DeliveryWithAttempts = WebhookDelivery & { attemptsMade: WebhookAttempt[] };

/** Where a page of deliveries starts: after this (createdAt, id), newest first. */
export interface DeliveryCursor {
  createdAt: Date;
  id: string;
}

/** Persistence of webhook deliveries and their attempts. */
export class WebhookDeliveriesRepository {
  constructor(private readonly db: DbClient) {}

  /** PENDING deliveries whose next attempt was due at or before `before`, the longest overdue first. */
  overdue(before: Date, limit: number): Promise<WebhookDelivery[]> {
    return this.db.webhookDelivery.findMany({
      where: { status: WebhookDeliveryStatus.PENDING, nextAttemptAt: { lte: before } },
      orderBy: { nextAttemptAt: 'asc' },
      take: limit,
    });
  }

  /** Creates the delivery for `sourceKey`, or returns the one a previous run already created. */
  async createOnce(data: NewDelivery): Promise<WebhookDelivery> {
    try {
      return await this.db.webhookDelivery.create({ data: { id: newId(), ...data } });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      return this.db.webhookDelivery.findUniqueOrThrow({ where: { sourceKey: data.sourceKey } });
    }
  }

  findById(id: string): Promise<WebhookDelivery | null> {
    return this.db.webhookDelivery.findUnique({ where: { id } });
  }

  /**
   * Claims attempt number `attempt` by writing its row (unique per delivery and number). Returns the row and
   * whether it already existed (a run that died mid-request left it unfinished).
   */
  async claimAttempt(
    delivery: WebhookDelivery,
    attempt: number,
    startedAt: Date,
  ): Promise<{ row: WebhookAttempt; existed: boolean }> {
    const data = { deliveryId: delivery.id, jobId: delivery.jobId, url: delivery.url, attempt, startedAt };
    try {
      return { row: await this.db.webhookAttempt.create({ data: { id: newId(), ...data } }), existed: false };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const row = await this.db.webhookAttempt.update({
        where: { deliveryId_attempt: { deliveryId: delivery.id, attempt } },
        data: { startedAt },
      });
      return { row, existed: true };
    }
  }

  /**
   * Writes the attempt's result and the delivery's summary together. Only the attempt that follows the last
   * recorded one, on a delivery still PENDING, is written; false means someone else already recorded it.
   */
  async finishAttempt(result: FinishedAttempt): Promise<boolean> {
    return withTransaction(this.db, async (tx) => {
      const terminal = result.status !== WebhookDeliveryStatus.PENDING;
      const { count } = await tx.webhookDelivery.updateMany({
        where: { id: result.deliveryId, status: WebhookDeliveryStatus.PENDING, attempts: result.attempt - 1 },
        data: {
          attempts: result.attempt,
          status: result.status,
          lastStatusCode: result.statusCode,
          lastError: result.error,
          nextAttemptAt: result.nextAttemptAt,
          ...(result.status === WebhookDeliveryStatus.SUCCEEDED ? { deliveredAt: result.finishedAt } : {}),
          // The body is only needed for further attempts; a finished delivery keeps no copy of the job's output.
          ...(terminal ? { body: null } : {}),
        },
      });
      if (count !== 1) return false;
      await tx.webhookAttempt.update({
        where: { deliveryId_attempt: { deliveryId: result.deliveryId, attempt: result.attempt } },
        data: {
          statusCode: result.statusCode,
          durationMs: result.durationMs,
          error: result.error,
          responseExcerpt: result.responseExcerpt,
          finishedAt: result.finishedAt,
        },
      });
      return true;
    });
  }

  /** One page of an endpoint's deliveries, newest first, each with its attempts; `limit + 1` rows tell if more exist. */
  listByEndpoint(
    accountId: string,
    endpointId: string,
    limit: number,
    after?: DeliveryCursor,
  ): Promise<DeliveryWithAttempts[]> {
    const page = after
      ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }
      : {};
    return this.db.webhookDelivery.findMany({
      where: { accountId, endpointId, ...page },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: limit,
      include: { attemptsMade: { orderBy: { attempt: 'asc' } } },
    });
  }

  /** True when the account has any delivery for the endpoint (they outlive a deleted endpoint). */
  async hasAny(accountId: string, endpointId: string): Promise<boolean> {
    return (
      (await this.db.webhookDelivery.findFirst({ where: { accountId, endpointId }, select: { id: true } })) !== null
    );
  }

  /**
   * The account owning an endpoint, for a delivery request that does not name it. Read here, not through the
   * endpoints lib, because it is the one cross-tenant lookup webhooks need: the endpoint id comes from a trusted queue.
   */
  async accountOfEndpoint(endpointId: string): Promise<string | null> {
    const row = await this.db.endpoint.findUnique({ where: { id: endpointId }, select: { accountId: true } });
    return row?.accountId ?? null;
  }
}
