/** Injection token for the gateway's BillingService. */
export const BILLING_SERVICE = Symbol('BILLING_SERVICE');
