import type { DbClient } from '@runplane/db';
import { HOURS_PER_MONTH, Money, RATE_DECIMALS } from './metering/money';

/**
 * What an account is billed per hour right now: the rates of its open usage intervals, as the roll-up bills them
 * (compute of running Pods and workers, a running Pod's compute lowered by a savings plan active now; the disk of
 * running and stopped Pods and network volumes at their monthly storage cost / 730). Resources billing has not
 * heard of yet (a Pod still starting) cost nothing, as on the bill.
 */
export class CurrentSpendRepository {
  constructor(private readonly db: DbClient) {}

  /** USD per hour at `now`, rounded to 6 decimal places. */
  async perHour(accountId: string, now: Date): Promise<number> {
    const [intervals, plans] = await Promise.all([
      this.db.usageInterval.findMany({
        where: { accountId, endedAt: null, startedAt: { lte: now } },
        select: { resourceKind: true, resourceId: true, phase: true, ratePerHr: true, storageCostPerMonth: true },
      }),
      this.db.savingsPlan.findMany({
        where: { accountId, startTime: { lte: now }, endTime: { gt: now } },
        select: { podId: true, costPerHr: true },
      }),
    ]);
    let total = new Money(0);
    for (const interval of intervals) {
      let compute = new Money(interval.ratePerHr.toString());
      if (interval.resourceKind === 'POD' && interval.phase === 'RUNNING') {
        for (const plan of plans.filter((p) => p.podId === interval.resourceId)) {
          compute = Money.min(compute, new Money(plan.costPerHr.toString()));
        }
      }
      total = total.add(compute).add(new Money(interval.storageCostPerMonth.toString()).div(HOURS_PER_MONTH));
    }
    return total.toDecimalPlaces(RATE_DECIMALS).toNumber();
  }
}
