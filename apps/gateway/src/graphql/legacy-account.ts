import type { CurrentSpendRepository } from '@runplane/billing';

/**
 * The account fields of `myself` that runpodctl's `user` and `doctor` commands read. `currentSpendPerHr` is what
 * billing charges the account per hour right now (running Pods and workers at their price, savings plans applied,
 * and the disk of Pods and network volumes). Runplane has no prepaid balance, spend limit, e-mail address or
 * notification e-mails, so `email`, `clientBalance` and `spendLimit` are null (runpodctl shows them as empty and 0)
 * and the notification switches are false: Runplane sends none of those notifications.
 */
export function accountFields(spend: CurrentSpendRepository, accountId: string) {
  return {
    email: null,
    clientBalance: null,
    spendLimit: null,
    currentSpendPerHr: () => spend.perHour(accountId, new Date()),
    notifyPodsStale: false,
    notifyPodsGeneral: false,
    notifyLowBalance: false,
  };
}
