import { addBuckets, bucketStart, resolveWindow } from './billing-window';

const at = (iso: string) => new Date(iso);

describe('v2 billing windows', () => {
  it('finds bucket starts in UTC, weeks from Monday as Postgres date_trunc', () => {
    const t = at('2026-06-03T17:45:12Z'); // a Wednesday
    expect(bucketStart(t, 'hour').toISOString()).toBe('2026-06-03T17:00:00.000Z');
    expect(bucketStart(t, 'day').toISOString()).toBe('2026-06-03T00:00:00.000Z');
    expect(bucketStart(t, 'week').toISOString()).toBe('2026-06-01T00:00:00.000Z');
    expect(bucketStart(at('2026-06-07T23:00:00Z'), 'week').toISOString()).toBe('2026-06-01T00:00:00.000Z');
    expect(bucketStart(t, 'month').toISOString()).toBe('2026-06-01T00:00:00.000Z');
    expect(bucketStart(t, 'year').toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(addBuckets(at('2026-01-31T00:00:00Z'), 'day', 1).toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(addBuckets(at('2026-12-01T00:00:00Z'), 'month', 1).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });

  it('snaps startTime down and endTime up unless on a boundary; defaults to the last 30 days', () => {
    const now = at('2026-06-10T12:30:00Z');
    expect(
      resolveWindow({ bucketSize: 'day', startTime: '2026-06-01T05:00:00Z', endTime: '2026-06-02T00:00:00Z' }, now),
    ).toEqual({
      start: at('2026-06-01T00:00:00Z'),
      end: at('2026-06-02T00:00:00Z'),
    });
    expect(resolveWindow({ bucketSize: 'month', endTime: '2026-06-02T00:00:00+02:00' }, now)).toEqual({
      start: at('2026-05-01T00:00:00Z'),
      end: at('2026-07-01T00:00:00Z'),
    });
    expect(resolveWindow({ bucketSize: 'day' }, now)).toEqual({
      start: at('2026-05-11T00:00:00Z'),
      end: at('2026-06-11T00:00:00Z'),
    });
  });

  it('counts lastN buckets back from the current one, which it includes', () => {
    const now = at('2026-06-10T12:30:00Z');
    expect(resolveWindow({ bucketSize: 'hour', lastN: 1 }, now)).toEqual({
      start: at('2026-06-10T12:00:00Z'),
      end: at('2026-06-10T13:00:00Z'),
    });
    expect(resolveWindow({ bucketSize: 'week', lastN: 2 }, now)).toEqual({
      start: at('2026-06-01T00:00:00Z'),
      end: at('2026-06-15T00:00:00Z'),
    });
  });
});
