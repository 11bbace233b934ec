import { adjustedCostPerHr, chooseGpuType, gpuHourlyPrice, type PodGpuType } from './pod-pricing';

const gpu = (id: string, secure: number, community: number | null, maxGpuCount = 8): PodGpuType => ({
  id,
  displayName: id,
  maxGpuCount,
  securePrice: secure,
  communityPrice: community,
  secureSpotPrice: secure / 2,
  communitySpotPrice: community === null ? null : community / 2,
  oneWeekPrice: null,
  oneMonthPrice: null,
  threeMonthPrice: null,
  sixMonthPrice: null,
});

const A = gpu('A', 1, 0.8);
const B = gpu('B', 0.5, null, 2);
const C = gpu('C', 2, 1.5);

describe('gpuHourlyPrice', () => {
  it('picks the secure, community or spot price', () => {
    expect(gpuHourlyPrice(A, 'SECURE', false)).toBe(1);
    expect(gpuHourlyPrice(A, 'COMMUNITY', false)).toBe(0.8);
    expect(gpuHourlyPrice(A, 'SECURE', true)).toBe(0.5);
    expect(gpuHourlyPrice(A, 'COMMUNITY', true)).toBe(0.4);
    expect(gpuHourlyPrice(B, 'COMMUNITY', false)).toBeNull();
  });
});

describe('chooseGpuType', () => {
  const opts = { cloudType: 'SECURE' as const, interruptible: false, gpuCount: 1, priorityListGiven: true };

  it('takes the first of the priority list and prices it times the count', () => {
    expect(chooseGpuType([C, A], opts)).toEqual({ gpu: C, costPerHr: 2 });
    expect(chooseGpuType([C, A], { ...opts, gpuCount: 3 })).toEqual({ gpu: C, costPerHr: 6 });
  });

  it('skips types not offered in the cloud or not allowing that many GPUs', () => {
    expect(chooseGpuType([B, A], { ...opts, cloudType: 'COMMUNITY' })).toEqual({ gpu: A, costPerHr: 0.8 });
    expect(chooseGpuType([B, A], { ...opts, gpuCount: 4 })).toEqual({ gpu: A, costPerHr: 4 });
    expect(chooseGpuType([B], { ...opts, gpuCount: 4 })).toBeNull();
  });

  it('takes the cheapest offered type when no list was given', () => {
    expect(chooseGpuType([C, A, B], { ...opts, priorityListGiven: false })).toEqual({ gpu: B, costPerHr: 0.5 });
    expect(
      chooseGpuType([C, A, B], { ...opts, priorityListGiven: false, cloudType: 'COMMUNITY', interruptible: true }),
    ).toEqual({
      gpu: A,
      costPerHr: 0.4,
    });
  });
});

describe('adjustedCostPerHr', () => {
  const now = new Date('2024-06-01T00:00:00Z');
  const plan = (costPerHr: number, start: string, end: string) => ({
    costPerHr,
    startTime: new Date(start),
    endTime: new Date(end),
  });

  it('uses the lowest active plan rate, never raising the cost', () => {
    expect(adjustedCostPerHr(1.38, [], now)).toBe(1.38);
    expect(adjustedCostPerHr(1.38, [plan(0.9, '2024-05-01T00:00:00Z', '2024-07-01T00:00:00Z')], now)).toBe(0.9);
    expect(adjustedCostPerHr(1.38, [plan(2, '2024-05-01T00:00:00Z', '2024-07-01T00:00:00Z')], now)).toBe(1.38);
  });

  it('ignores plans not yet started or already over', () => {
    const plans = [
      plan(0.1, '2024-06-02T00:00:00Z', '2024-07-01T00:00:00Z'),
      plan(0.2, '2024-04-01T00:00:00Z', '2024-06-01T00:00:00Z'),
    ];
    expect(adjustedCostPerHr(1.38, plans, now)).toBe(1.38);
  });
});
