import type { PodUsageEvent, UsageEvent, VolumeUsageEvent } from '@runplane/contracts';
import { podUsageEvent } from '@runplane/testing';
import { SPEC_STORAGE_PRICES } from './__fixtures__/prices';
import { computeCharges } from './charges';
import { deriveIntervals, diffIntervals, volumeCostPerMonth } from './intervals';

const prices = SPEC_STORAGE_PRICES;
const at = (time: string) => `2024-01-01T${time}Z`;
const pod = (type: PodUsageEvent['type'], time: string, eventId = `${type}-${time}`): PodUsageEvent =>
  podUsageEvent({ eventId, accountId: 'a', occurredAt: at(time), type, podId: 'p' });
const volume = (type: VolumeUsageEvent['type'], time: string, sizeGb: number): VolumeUsageEvent => ({
  eventId: `${type}-${time}`,
  accountId: 'a',
  occurredAt: at(time),
  type,
  networkVolumeId: 'v',
  dataCenterId: 'EU-RO-1',
  sizeGb,
});
const spans = (events: UsageEvent[]) =>
  deriveIntervals(events, prices).map((i) => [
    i.phase,
    i.startedAt.toISOString().slice(11, 19),
    i.endedAt?.toISOString().slice(11, 19) ?? null,
  ]);

describe('deriveIntervals', () => {
  it('follows the Pod lifecycle in any delivery order', () => {
    const events = [
      pod('pod.started', '10:00:00'),
      pod('pod.stopped', '11:00:00'),
      pod('pod.started', '12:00:00'),
      pod('pod.terminated', '13:00:00'),
    ];
    const expected = [
      ['RUNNING', '10:00:00', '11:00:00'],
      ['STOPPED', '11:00:00', '12:00:00'],
      ['RUNNING', '12:00:00', '13:00:00'],
    ];
    expect(spans(events)).toEqual(expected);
    expect(spans([...events].reverse())).toEqual(expected);
  });

  it('opens STOPPED on a stop whose start is not known yet, and ignores a second stop and anything after terminate', () => {
    expect(spans([pod('pod.stopped', '11:00:00')])).toEqual([['STOPPED', '11:00:00', null]]);
    expect(spans([pod('pod.stopped', '11:00:00'), pod('pod.stopped', '11:30:00')])).toEqual([
      ['STOPPED', '11:00:00', null],
    ]);
    expect(
      spans([pod('pod.started', '10:00:00'), pod('pod.terminated', '11:00:00'), pod('pod.started', '12:00:00')]),
    ).toEqual([['RUNNING', '10:00:00', '11:00:00']]);
  });

  it('applies same-instant events in lifecycle order and drops zero-length intervals', () => {
    expect(spans([pod('pod.terminated', '10:00:00'), pod('pod.started', '10:00:00')])).toEqual([]);
    expect(spans([volume('volume.resized', '12:00:00', 50), volume('volume.created', '00:00:00', 10)])).toEqual([
      ['STORED', '00:00:00', '12:00:00'],
      ['STORED', '12:00:00', null],
    ]);
  });

  it('prices disk from the catalog: running and stopped Pod disk, tiered network volumes', () => {
    const withDisk = { ...pod('pod.stopped', '10:00:00'), containerDiskInGb: 50, volumeInGb: 23 };
    expect(deriveIntervals([withDisk], prices)[0]).toMatchObject({
      phase: 'STOPPED',
      ratePerHr: '0.000000',
      storageCostPerMonth: '14.600000',
      diskSpaceGb: 73,
    });
    // 1,000 GB x 0.07 + 500 GB x 0.05 = 70 + 25
    expect(volumeCostPerMonth(1500, prices).toString()).toBe('95');
  });
});

describe('diffIntervals', () => {
  it('reports billing dirty only from where an interval changed', () => {
    const open = deriveIntervals([pod('pod.started', '10:00:00')], prices);
    const closed = deriveIntervals([pod('pod.started', '10:00:00'), pod('pod.stopped', '15:00:00')], prices);
    const changes = diffIntervals(open, closed);
    expect(changes.update.map((i) => i.eventId)).toEqual(['pod.started-10:00:00']);
    expect(changes.create.map((i) => i.eventId)).toEqual(['pod.stopped-15:00:00']);
    expect(changes.dirtyFrom?.toISOString()).toBe(at('15:00:00').replace('Z', '.000Z'));
    expect(diffIntervals(closed, closed)).toEqual({ create: [], update: [], remove: [], dirtyFrom: null });
  });
});

describe('computeCharges', () => {
  it('splits at hours and savings plan edges, to the millisecond, rounding each record once to 10 places', () => {
    const intervals = deriveIntervals([pod('pod.started', '10:20:00'), pod('pod.terminated', '11:00:00.001')], prices);
    const plan = { costPerHr: '0.30', startTime: new Date(at('10:40:00')), endTime: new Date(at('12:00:00')) };
    const charges = computeCharges(intervals, [plan], new Date(at('00:00:00')), new Date(at('23:00:00')));
    // 10:00 hour: 20 min x 0.60 + 20 min x 0.30 = 0.20 + 0.10; 11:00 hour: 1 ms x 0.30 / 3,600,000 ms
    expect(charges.map((c) => [c.time.toISOString(), c.amount, c.timeBilledMs])).toEqual([
      ['2024-01-01T10:00:00.000Z', '0.3000000000', 2_400_000],
      ['2024-01-01T11:00:00.000Z', '0.0000000833', 1],
    ]);
  });

  it('bills open intervals only up to `until`, and nothing before `from`', () => {
    const intervals = deriveIntervals([pod('pod.started', '10:00:00')], prices);
    const charges = computeCharges(intervals, [], new Date(at('11:00:00')), new Date(at('11:30:00')));
    expect(charges.map((c) => [c.time.toISOString(), c.amount, c.timeBilledMs])).toEqual([
      ['2024-01-01T11:00:00.000Z', '0.3000000000', 1_800_000],
    ]);
  });
});
