import type { PublicJobUsageEvent } from '@runplane/contracts';
import { SPEC_STORAGE_PRICES } from './__fixtures__/prices';
import { computeCharges } from './charges';
import { deriveIntervals } from './intervals';

const prices = SPEC_STORAGE_PRICES;

const job = (fields: Partial<PublicJobUsageEvent>): PublicJobUsageEvent => ({
  eventId: 'job.j1',
  accountId: 'caller',
  occurredAt: '2024-01-01T10:00:30.000Z',
  type: 'job.billed',
  jobId: 'j1',
  model: 'echo',
  executionMs: 90_000,
  costPerHr: '0.72',
  pricePerRequest: null,
  ...fields,
});

const hourly = (event: PublicJobUsageEvent) =>
  computeCharges(
    deriveIntervals([event], prices),
    [],
    new Date('2024-01-01T00:00:00Z'),
    new Date('2024-01-02T00:00:00Z'),
  ).map((c) => ({
    accountId: c.accountId,
    kind: c.kind,
    time: c.time.toISOString(),
    podId: c.podId,
    endpointId: c.endpointId,
    amount: c.amount,
    timeBilledMs: c.timeBilledMs,
  }));

describe('a public-endpoint job bills its caller', () => {
  it('execution time x the worker price, split at the hour, on the model and the job, never the worker', () => {
    // 09:59:00 - 10:00:30 at 0.72/h: 60 s = 0.012, 30 s = 0.006.
    expect(hourly(job({}))).toEqual([
      {
        accountId: 'caller',
        kind: 'PUBLIC_ENDPOINT',
        time: '2024-01-01T09:00:00.000Z',
        podId: 'j1',
        endpointId: 'echo',
        amount: '0.0120000000',
        timeBilledMs: 60_000,
      },
      {
        accountId: 'caller',
        kind: 'PUBLIC_ENDPOINT',
        time: '2024-01-01T10:00:00.000Z',
        podId: 'j1',
        endpointId: 'echo',
        amount: '0.0060000000',
        timeBilledMs: 30_000,
      },
    ]);
  });

  it('the per-request price once, in the hour the job started, whatever its execution time', () => {
    const charges = hourly(job({ pricePerRequest: '0.0025', costPerHr: '0' }));
    expect(charges.map((c) => [c.time, c.amount])).toEqual([
      ['2024-01-01T09:00:00.000Z', '0.0025000000'],
      ['2024-01-01T10:00:00.000Z', '0.0000000000'],
    ]);
    const instant = hourly(job({ pricePerRequest: '0.0025', costPerHr: '0', executionMs: 0 }));
    expect(instant.map((c) => [c.time, c.amount, c.timeBilledMs])).toEqual([
      ['2024-01-01T10:00:00.000Z', '0.0025000000', 0],
    ]);
  });

  it('derives one closed interval from the event, however often it is replayed', () => {
    const event = job({});
    const intervals = deriveIntervals([event, event], prices);
    expect(intervals).toHaveLength(1);
    expect(intervals[0]).toMatchObject({
      resourceKind: 'PUBLIC_JOB',
      resourceId: 'j1',
      endpointId: 'echo',
      startedAt: new Date('2024-01-01T09:59:00.000Z'),
      endedAt: new Date('2024-01-01T10:00:30.000Z'),
      endEventId: 'job.j1',
      ratePerHr: '0.720000',
      flatAmount: '0.000000',
    });
  });
});
