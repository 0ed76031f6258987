/**
 * A client's new payment: its fields, milestones and money from the request, its personal data
 * kept here, and its workflow started (one run per payment id, never a second).
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import { ulid } from 'ulid';
import { minorUnits } from '../domain/money';
import { type MilestoneState, type PaymentState } from '../domain/paymentTypes';
import { INITIAL_STATUS, creationEntry } from '../domain/payment';
import { wholeMilestone } from '../domain/milestones';
import { personalOf, withPersonal, withoutPersonal } from '../domain/personal';
import { scopeOf } from '../domain/tenancy';
import { claimOpenPayment, purgeStaleClaims } from '../db/openPayments';
import { findPayment } from '../db/payments';
import { savePersonal } from '../db/personal';
import { getPaymentQuery, paymentWorkflow } from '../workflows';
import { QuotaExceeded } from './errors';
import { type Call, type PaymentsDeps, paymentRun, paymentRunOptions } from './paymentRun';

const DEFAULT_DEPOSIT_DEADLINE_SECONDS = 7 * 24 * 3600;

export interface NewPayment {
  amountMinor: bigint;
  /** 0 ≤ fee ≤ amount (docs/money.md). */
  platformFeeMinor?: bigint;
  currency: string;
  payerEmail: string;
  recipientEmail: string;
  description?: string | null;
  metadata?: Record<string, string>;
  depositDeadlineSeconds?: number;
  autoReleaseAfterSeconds?: number;
  /** The parts the amount is released in (docs/concepts.md); their amounts sum to `amountMinor`. */
  milestones?: NewMilestone[];
}

interface NewMilestone {
  reference?: string;
  description?: string | null;
  amountMinor: bigint;
  recipientEmail?: string;
  autoReleaseAfterSeconds?: number;
}

/** A new payment's money: its fee, nothing held yet. */
const moneyFields = (platformFee: bigint) => ({
  platformFeeMinor: platformFee.toString(),
  heldMinor: '0',
  releasedMinor: '0',
  refundedMinor: '0',
  feeCollectedMinor: '0',
});

/** A new payment's milestones: those asked for, or one of the whole amount (docs/concepts.md). */
function newMilestones(payment: Omit<PaymentState, 'milestones' | 'staged'>, asked: NewMilestone[] | undefined): MilestoneState[] {
  if (!asked) return [wholeMilestone(payment)];
  return asked.map((m) => ({
    ...wholeMilestone(payment),
    id: `ms_${ulid()}`,
    amountMinor: m.amountMinor.toString(),
    autoReleaseAfterSeconds: m.autoReleaseAfterSeconds ?? payment.autoReleaseAfterSeconds,
    reference: m.reference ?? null,
    description: m.description ?? null,
    recipientEmail: m.recipientEmail?.toLowerCase() ?? payment.recipientEmail,
  }));
}

export function paymentCreation(deps: PaymentsDeps) {
  const { db, temporal, config } = deps;
  const { within, showDurable } = paymentRun(deps);

  /**
   * A place among the account's open payments in this mode, taken before anything starts. A create
   * that fails afterwards keeps its place until its claim lapses (src/db/openPayments.ts): whether its
   * workflow started is not always known, and the limit must hold either way.
   */
  async function claimPlace({ principal }: Call, paymentId: string): Promise<void> {
    const setting = principal.livemode ? 'MAX_OPEN_PAYMENTS_LIVE' : 'MAX_OPEN_PAYMENTS_TEST';
    const limit = config[setting];
    if (await claimOpenPayment(db, scopeOf(principal), paymentId, limit)) return;
    const mode = principal.livemode ? 'live' : 'test';
    const message = `this account has ${limit} open ${mode} payments, the most it may have (${setting}); wait for one to be released, cancelled or refunded`;
    throw new QuotaExceeded('open_payments', limit, setting, message);
  }

  return {
    /** Delete the claims of creates that died before their payment's row was written (src/db/openPayments.ts). */
    purgeStaleClaims: () => purgeStaleClaims(db),

    /** Start the payment's workflow; its id is the payment id, never reused. */
    async create(call: Call, input: NewPayment): Promise<PaymentState> {
      const { principal } = call;
      const now = new Date();
      const fields = {
        id: `pay_${call.resourceId ?? ulid()}`,
        accountId: principal.accountId,
        livemode: principal.livemode,
        amountMinor: input.amountMinor.toString(),
        amountExponent: minorUnits(input.currency),
        currency: input.currency,
        status: INITIAL_STATUS,
        payerEmail: input.payerEmail.toLowerCase(),
        recipientEmail: input.recipientEmail.toLowerCase(),
        description: input.description ?? null,
        metadata: input.metadata ?? {},
        depositDeadline: new Date(now.getTime() + (input.depositDeadlineSeconds ?? DEFAULT_DEPOSIT_DEADLINE_SECONDS) * 1000).toISOString(),
        autoReleaseAfterSeconds: input.autoReleaseAfterSeconds ?? null,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
        version: 1,
        ...moneyFields(input.platformFeeMinor ?? 0n),
      };
      const payment: PaymentState = {
        ...fields,
        milestones: newMilestones(fields, input.milestones),
        staged: input.milestones !== undefined,
      };
      await claimPlace(call, payment.id);
      // Kept here before the workflow starts, which carries ids and amounts only (docs/architecture.md).
      await savePersonal(db, payment.id, personalOf(payment));
      try {
        await within(call, () =>
          temporal.workflow.start(paymentWorkflow, {
            ...paymentRunOptions(config, payment, new Date(payment.depositDeadline)),
            // Never a second run under a payment id, even after the first has closed.
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
            args: [{ payment: withoutPersonal(payment), actor: principal.actor, requestId: call.requestId }],
          }),
        );
      } catch (err) {
        // A retry (same Idempotency-Key) of a create whose first attempt started the workflow but
        // failed on our side before answering: answer with that payment, never start a second.
        if (!(err instanceof WorkflowExecutionAlreadyStartedError) || !call.resourceId) throw err;
        const existing = await within(call, () => temporal.workflow.getHandle(payment.id).query(getPaymentQuery))
          .then(async (state) => withPersonal(state, (await findPayment(db, scopeOf(principal), payment.id)) ?? payment))
          .catch(() => findPayment(db, scopeOf(principal), payment.id));
        if (!existing || existing.accountId !== principal.accountId || existing.livemode !== principal.livemode) throw err;
        return existing;
      }
      // Lists the payment the moment the client hears 201. The workflow exists from here on, so a
      // failed write is logged, not answered with an error that invites a second create.
      await showDurable(call, payment, creationEntry(payment, principal.actor));
      return payment;
    },
  };
}
