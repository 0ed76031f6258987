/**
 * Webhook fixtures the test files share: retries in milliseconds, a configuration, its delivery log
 * polled until it shows what a test waits for, and a payment's workflow state built by hand.
 */
import { expect } from 'vitest';
import { ulid } from 'ulid';
import type { PaymentDetails } from '../../src/payments/paymentRecord.rules';
import type { HistoryEntry } from '../../src/payments/paymentTypes.rules';
import { wholeMilestone } from '../../src/payments/milestones.rules';
import { eventually, type Stack } from './stack';

/** Short retries through the WEBHOOK_* settings: 200 ms, ×2, capped at 400 ms, 5 attempts, 1 s time-out. */
export const FAST_WEBHOOK_RETRIES = {
  WEBHOOK_RETRY_INITIAL_INTERVAL: '200ms',
  WEBHOOK_RETRY_BACKOFF: '2',
  WEBHOOK_RETRY_MAX_INTERVAL: '400ms',
  WEBHOOK_MAX_ATTEMPTS: '5',
  WEBHOOK_TIMEOUT: '1s',
};

export interface Configured {
  id: string;
  secret: string;
  url: string;
  events: string[];
  active: boolean;
}

/** POST /webhooks/configure for `url` (every event unless `events`), which must answer 201. */
export async function configureWebhook(stack: Stack, key: string, url: string, events?: string[]): Promise<Configured> {
  const res = await stack.http.post('/api/v1/webhooks/configure', { key, body: events ? { url, events } : { url } });
  expect(res.status).toBe(201);
  return res.body.webhook as Configured;
}

/** A configuration's delivery log (GET /webhooks/:id/deliveries, `query` appended), newest first. */
export const deliveryLog = async (stack: Stack, key: string, webhookId: string, query = '') =>
  (await stack.http.get(`/api/v1/webhooks/${webhookId}/deliveries${query}`, { key })).body.data as any[];

/** Poll the delivery log until `pick` returns a value (not undefined), and return it. */
export const untilDeliveries = <T>(
  stack: Stack,
  key: string,
  webhookId: string,
  pick: (log: any[]) => T | undefined,
  opts: { query?: string; timeoutMs?: number; what?: string } = {},
) => eventually(async () => pick(await deliveryLog(stack, key, webhookId, opts.query)), opts.timeoutMs ?? 20_000, opts.what);

/** Poll until the account's (first) configuration is disabled, and return it. */
export const untilDisabled = (stack: Stack, key: string) =>
  eventually(
    async () => {
      const list = (await stack.http.get('/api/v1/webhooks', { key })).body.data;
      return list[0].active === false ? list[0] : undefined;
    },
    20_000,
    'the configuration to be disabled',
  );

/**
 * A payment as the create use case would answer it: pending deposit, 10.00 USD, due in an hour. As a
 * run's input (a test that starts one itself) its personal fields are passed on to the publication,
 * there being none kept for it (src/payments/personalData.rules.ts, `withPersonal`).
 */
export function samplePaymentDetails(accountId: string, over: Partial<PaymentDetails> = {}): PaymentDetails {
  const now = new Date().toISOString();
  const payment: Omit<PaymentDetails, 'milestones' | 'staged'> & Partial<PaymentDetails> = {
    id: `pay_${ulid()}`,
    accountId,
    livemode: false,
    amountMinor: 1000n,
    currency: 'USD',
    status: 'pending_deposit',
    payerEmail: 'payer@example.com',
    recipientEmail: 'recipient@example.com',
    description: null,
    metadata: {},
    depositDeadline: new Date(Date.now() + 3600_000).toISOString(),
    autoReleaseAfterSeconds: null,
    createdAt: now,
    updatedAt: now,
    version: 1,
    amountExponent: 2,
    platformFeeMinor: 0n,
    heldMinor: 0n,
    releasedMinor: 0n,
    refundedMinor: 0n,
    feeCollectedMinor: 0n,
    ...over,
  };
  const whole = { ...wholeMilestone(payment), reference: null, description: null, recipientEmail: payment.recipientEmail };
  return { ...payment, milestones: over.milestones ?? [whole], staged: over.staged ?? false };
}

/** The history entry of a deposit of `minor` at version 2: one ledger entry with two postings. */
export const depositEntry = (at: string, minor = 1000n): HistoryEntry => ({
  seq: 2,
  action: 'deposit',
  from: 'pending_deposit',
  to: 'in_custody',
  event: 'payment.deposited',
  actor: 'test',
  reason: null,
  at,
  movement: { deposited: minor, refunded: 0n, released: 0n, fee: 0n },
});

/** A sample payment's deposit of `minor` at version 2: the payment in custody and its history entry. */
export function sampleDeposit(accountId: string, minor = 1000n): { state: PaymentDetails; entry: HistoryEntry } {
  const created = samplePaymentDetails(accountId, { amountExponent: 2 });
  const at = new Date().toISOString();
  const state: PaymentDetails = { ...created, status: 'in_custody', version: 2, updatedAt: at, heldMinor: minor };
  return { state, entry: depositEntry(at, minor) };
}

/** A new account with one configuration for `url` (every event). */
export async function accountWithWebhook(stack: Stack, url: string) {
  const acct = await stack.newAccount();
  const key = acct.test_api_key;
  return { acct, key, hook: await configureWebhook(stack, key, url) };
}
