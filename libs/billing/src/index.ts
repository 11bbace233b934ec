import type { DbClient } from '@runplane/db';
import { BillingRepository } from './billing.repository';
import { BillingService, type BillingCatalog } from './billing.service';

export { BillingService, type BillingCatalog } from './billing.service';
export {
  BillingRepository,
  type BillingBucketRow,
  type BillingGroupColumn,
  type BillingKind,
  type BillingSelection,
} from './billing.repository';

/** The billing read service over one database client. */
export function createBillingService(db: DbClient, catalog: BillingCatalog): BillingService {
  return new BillingService(new BillingRepository(db), catalog);
}
export { type UsageRejection, UsageEventRejectedError } from './aggregation/errors';
export {
  type Clock,
  type RecordOutcome,
  type RollUpResult,
  UsageAggregator,
  type UsageAggregatorOptions,
} from './aggregation/usage-aggregator';
export { startUsageConsumer, type UsageConsumerOptions, type UsageFailure } from './aggregation/usage-consumer';
export { type Charge, computeCharges, type PlanWindow } from './metering/charges';
export { deriveIntervals, type DerivedInterval, volumeCostPerMonth } from './metering/intervals';
export { HOURS_PER_MONTH } from './metering/money';
export { type LedgerEntry, UsageLedgerRepository } from './usage-ledger.repository';
export { CurrentSpendRepository } from './current-spend.repository';
export { addBuckets, bucketStart, resolveWindow, type BillingWindow, type WindowQuery } from './billing-window';
export {
  BillingBucketsRepository,
  type BucketKind,
  type BucketRow,
  type BucketSelection,
} from './billing-buckets.repository';
