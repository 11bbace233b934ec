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
export { USAGE_QUEUE, usageCatalog } from './usage-catalog';
