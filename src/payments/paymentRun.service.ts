/**
 * What the payment use cases share: the request they serve (`Call`), the options every run of a
 * payment starts with, and the one deadline of a request's Temporal calls. The API writes no money:
 * the workers do, and an action answers once they have (docs/architecture.md, "One writer per aggregate").
 */
import type { Client } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import type { Knex } from 'knex';
import { tenantPriority } from '../webhooks/deliverySeries.rules';
import type { Config } from '../platform/config';
import { toMajor } from '../ledger/money.rules';
import type { PaymentState } from './paymentTypes.rules';
import { summary } from './paymentSummary.rules';
import {
  AccountIdKey,
  LivemodeKey,
  NextDeadlineKey,
  PaymentAmountKey,
  PaymentCurrencyKey,
  PaymentStatusKey,
  type RecordKind,
  RecordKindKey,
} from '../platform/searchAttributes.rules';
import type { Principal } from '../tenants/tenancy.rules';
import type { Logger } from '../platform/lib/logger';
import { withinDeadline } from '../platform/lib/temporalDeadline';

export interface PaymentsDeps {
  db: Knex;
  temporal: Client;
  config: Config;
  logger: Logger;
}

/** One request's identity, idempotency and deadline, as the use cases need them. */
export interface Call {
  principal: Principal;
  requestId: string;
  /** With an Idempotency-Key: the id for what this request creates or sends, the same on every retry. */
  resourceId?: string;
  /** The key's earlier attempt may have done the work already. */
  retry?: boolean;
  /** When the answer is due (ms since epoch): one deadline for every Temporal call of the request. */
  deadline?: number;
}

/**
 * What every run of a payment starts with, the first or one `npm run repair` starts: its id is the
 * payment id, its search attributes show the payment as it is now.
 */
export function paymentRunOptions(config: Config, payment: PaymentState, nextDeadline: Date | null) {
  return {
    workflowId: payment.id,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    // Tasks take milliseconds: a worker that died mid-task hands the payment on within seconds, and
    // a burst on a busy machine still fits (every timeout is work done twice).
    workflowTaskTimeout: '5 seconds' as const,
    // The tenant's fairness key and priority on the run's tasks and the activities it schedules (its
    // publications and deliveries): one account's load is dispatched in turn with the others'
    // (docs/webhooks.md, "No tenant slows another").
    priority: tenantPriority(payment),
    typedSearchAttributes: [
      { key: RecordKindKey, value: 'payment' satisfies RecordKind },
      { key: PaymentStatusKey, value: payment.status },
      { key: PaymentAmountKey, value: toMajor(payment.amountMinor, payment.currency, payment.amountExponent) },
      { key: PaymentCurrencyKey, value: payment.currency },
      { key: AccountIdKey, value: payment.accountId },
      { key: LivemodeKey, value: payment.livemode },
      ...(nextDeadline ? [{ key: NextDeadlineKey, value: nextDeadline }] : []),
    ] as SearchAttributePair[],
    // Ids and amounts only: personal data never enters Temporal (docs/architecture.md).
    staticSummary: `Payment ${summary(payment)}`,
    staticDetails: `account ${payment.accountId}, ${payment.livemode ? 'live' : 'test'} mode`,
  };
}

/** The use cases' shared steps, bound to their dependencies. */
export function paymentRun({ temporal }: Pick<PaymentsDeps, 'temporal'>) {
  return {
    /** Every Temporal call of the request under its one deadline. */
    within: <T>(call: Call, fn: () => Promise<T>) => withinDeadline(temporal, fn, call.deadline),
  };
}
