/**
 * A client's new payment: its fields, milestones and money from the request, its personal data
 * kept here, and its workflow started (one run per payment id, never a second) with the update that
 * answers once the workflow's first step, the creation's publication, is committed.
 */
import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
} from '@temporalio/client';
import { ulid } from 'ulid';
import { minorUnits } from '../ledger/money.rules';
import type { MilestoneRecord, PaymentDetails, PaymentRecord } from './paymentRecord.rules';
import { INITIAL_STATUS } from './payment.rules';
import { wholeMilestone } from './milestones.rules';
import { personalOf, withPersonal, withoutPersonal } from './personalData.rules';
import { type Scope, scopeOf } from '../tenants/tenancy.rules';
import type { CustodyAccount, Funding } from './paymentTypes.rules';
import { isPayable } from '../recipients/recipients.rules';
import { findRecipients } from '../recipients/recipients.repository';
import { notErased } from '../recipients/recipients.service';
import { claimOpenPayment, purgeStaleClaims } from './openPayments.repository';
import { findPayment } from './payments.repository';
import { findPersonal, savePersonal } from './personalData.repository';
import { withDisputeTexts } from './disputeTexts.repository';
import { createdUpdate, getPaymentQuery, paymentWorkflow } from '../platform/workflows.workflow';
import { InvalidInput, QuotaExceeded, RecipientNotPayable } from '../platform/useCaseErrors';
import { type Call, type PaymentsDeps, paymentRun, paymentRunOptions } from './paymentRun.service';

const DEFAULT_DEPOSIT_DEADLINE_SECONDS = 7 * 24 * 3600;

/**
 * The custody account a test-mode payer is shown while the operator has set none (docs/bank.md): the
 * ISO 13616 example IBAN, no one's account; test mode's transfers are simulated.
 */
const SIMULATED_CUSTODY: CustodyAccount = { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', name: 'Simulated Custody (test mode)' };

export interface NewPayment {
  amountMinor: bigint;
  /** 0 ≤ fee ≤ amount (docs/money.md). */
  platformFeeMinor?: bigint;
  currency: string;
  payerEmail: string;
  /** Who it is released to: an e-mail, or a recipient of the account and mode (docs/concepts.md, "Recipients"). */
  recipientEmail?: string;
  recipient?: string;
  description?: string | null;
  metadata?: Record<string, string>;
  depositDeadlineSeconds?: number;
  autoReleaseAfterSeconds?: number;
  /** The parts the amount is released in (docs/concepts.md); their amounts sum to `amountMinor`. */
  milestones?: NewMilestone[];
  /** How its money comes in (docs/bank.md, "Funding by bank transfer"); default `api`. */
  funding?: Funding;
}

interface NewMilestone {
  reference?: string;
  description?: string | null;
  amountMinor: bigint;
  recipientEmail?: string;
  recipient?: string;
  autoReleaseAfterSeconds?: number;
}

/** Whom a payment or milestone is released to: an e-mail, with the recipient it belongs to when one was named. */
interface Party {
  email: string;
  recipientId?: string;
}

const partyFields = (p: Party) => ({ recipientEmail: p.email, ...(p.recipientId ? { recipientId: p.recipientId } : {}) });

/** A new payment's money: its fee, nothing held yet. */
const moneyFields = (platformFee: bigint) => ({
  platformFeeMinor: platformFee,
  heldMinor: 0n,
  releasedMinor: 0n,
  refundedMinor: 0n,
  feeCollectedMinor: 0n,
});

/** A new payment's milestones: those asked for, or one of the whole amount (docs/concepts.md). */
function newMilestones(
  payment: Omit<PaymentRecord, 'milestones' | 'staged'>,
  asked: NewMilestone[] | undefined,
  parties: (Party | undefined)[],
): MilestoneRecord[] {
  const whole: MilestoneRecord = {
    ...wholeMilestone(payment),
    reference: null,
    description: null,
    recipientEmail: payment.recipientEmail,
    ...(payment.recipientId ? { recipientId: payment.recipientId } : {}),
  };
  if (!asked) return [whole];
  const { recipientId: _payments, ...withoutRecipient } = whole;
  return asked.map((m, i) => {
    // A milestone naming its own party is released to it alone; otherwise to the payment's.
    const party = parties[i];
    return {
      ...(party ? { ...withoutRecipient, ...partyFields(party) } : whole),
      id: `ms_${ulid()}`,
      amountMinor: m.amountMinor,
      autoReleaseAfterSeconds: m.autoReleaseAfterSeconds ?? payment.autoReleaseAfterSeconds,
      reference: m.reference ?? null,
      description: m.description ?? null,
    };
  });
}

export function paymentCreation(deps: PaymentsDeps) {
  const { db, temporal, config } = deps;
  const { within } = paymentRun(deps);

  /**
   * A place among the account's open payments in this mode, taken before anything starts. A create
   * that fails afterwards keeps its place until its claim lapses (src/payments/openPayments.repository.ts): whether its
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

  /**
   * Whom the payment and each milestone are released to. A named recipient must be of the caller's
   * account and mode (else 400 naming the field) and payable (else 409); its e-mail is the party's.
   * Only a create that names one reads the recipients: one query.
   */
  async function partiesOf(scope: Scope, input: NewPayment): Promise<{ payment: Party; milestones: (Party | undefined)[] }> {
    const named = [
      ...(input.recipient ? [{ field: 'recipient', id: input.recipient }] : []),
      ...(input.milestones ?? []).flatMap((m, i) => (m.recipient ? [{ field: `milestones.${i}.recipient`, id: m.recipient }] : [])),
    ];
    const found = new Map((await findRecipients(db, scope, [...new Set(named.map((n) => n.id))])).map((r) => [r.id, r]));
    const unknown = named.filter((n) => !found.has(n.id));
    if (unknown.length)
      throw new InvalidInput(unknown.map((n) => ({ field: n.field, message: `no recipient ${n.id} in this account and mode` })));
    for (const n of named) {
      const r = found.get(n.id)!;
      notErased(r, n.field);
      if (!isPayable(r)) throw new RecipientNotPayable(r.id, n.field, r.verification.status);
      if (r.email === input.payerEmail.toLowerCase())
        throw new InvalidInput([{ field: n.field, message: "the recipient's e-mail must differ from payer_email" }]);
    }
    const partyOf = (recipient: string | undefined, email: string | undefined): Party | undefined =>
      recipient
        ? { email: found.get(recipient)!.email, recipientId: recipient }
        : email === undefined
          ? undefined
          : { email: email.toLowerCase() };
    return {
      payment: partyOf(input.recipient, input.recipientEmail)!,
      milestones: (input.milestones ?? []).map((m) => partyOf(m.recipient, m.recipientEmail)),
    };
  }

  /**
   * The custody account a `bank_transfer` payment's payer transfers to, as the settings name it
   * (docs/bank.md); unset, test mode's simulated one, and live a 400 naming `funding`; null for `api`.
   */
  function custodyFor(funding: Funding, livemode: boolean): CustodyAccount | null {
    if (funding !== 'bank_transfer') return null;
    const { CUSTODY_ACCOUNT_IBAN: iban, CUSTODY_ACCOUNT_BIC: bic, CUSTODY_ACCOUNT_NAME: name } = config;
    // Test mode's transfers are simulated (POST /api/v1/test_helpers/bank_transfers): it needs no real account.
    if ((iban === undefined || bic === undefined || name === undefined) && !livemode) return SIMULATED_CUSTODY;
    if (iban === undefined || bic === undefined || name === undefined) {
      throw new InvalidInput([
        {
          field: 'funding',
          message: "bank_transfer needs the operator's custody account (CUSTODY_ACCOUNT_*), which this service has not set",
        },
      ]);
    }
    return { iban, bic, name };
  }

  return {
    /** Delete the claims of creates that died before their payment's row was written (src/payments/openPayments.repository.ts). */
    purgeStaleClaims: () => purgeStaleClaims(db),

    /**
     * Start the payment's workflow, its id the payment id, never reused; answer once its creation is
     * committed by the worker (docs/architecture.md, "One writer per aggregate").
     */
    async create(call: Call, input: NewPayment): Promise<PaymentDetails> {
      const { principal } = call;
      const funding = input.funding ?? 'api';
      const custody = custodyFor(funding, principal.livemode);
      const { payment: party, milestones: parties } = await partiesOf(scopeOf(principal), input);
      const now = new Date();
      const fields = {
        id: `pay_${call.resourceId ?? ulid()}`,
        accountId: principal.accountId,
        livemode: principal.livemode,
        amountMinor: input.amountMinor,
        amountExponent: minorUnits(input.currency),
        currency: input.currency,
        status: INITIAL_STATUS,
        payerEmail: input.payerEmail.toLowerCase(),
        ...partyFields(party),
        description: input.description ?? null,
        metadata: input.metadata ?? {},
        depositDeadline: new Date(now.getTime() + (input.depositDeadlineSeconds ?? DEFAULT_DEPOSIT_DEADLINE_SECONDS) * 1000).toISOString(),
        autoReleaseAfterSeconds: input.autoReleaseAfterSeconds ?? null,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
        version: 1,
        ...moneyFields(input.platformFeeMinor ?? 0n),
        funding,
        amountReceivedMinor: 0n,
        custody,
      };
      const payment: PaymentDetails = {
        ...fields,
        milestones: newMilestones(fields, input.milestones, parties),
        staged: input.milestones !== undefined,
      };
      await claimPlace(call, payment.id);
      // Kept here before the workflow starts, which carries ids and amounts only (docs/architecture.md).
      await savePersonal(db, payment.id, personalOf(payment));
      try {
        // One call: the start, and the `created` update, which the workflow answers once its first
        // step, the creation's publication (row, history, event, trail), is committed. A retry
        // (same Idempotency-Key) while the run is open sends the update to that run and waits the same.
        const start = new WithStartWorkflowOperation(paymentWorkflow, {
          ...paymentRunOptions(config, payment, new Date(payment.depositDeadline)),
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
          // Never a second run under a payment id, even after the first has closed.
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          args: [{ payment: withoutPersonal(payment), actor: principal.actor, requestId: call.requestId }],
        });
        const state = await within(call, () => temporal.workflow.executeUpdateWithStart(createdUpdate, { startWorkflowOperation: start }));
        // Never another tenant's run: ids come from the caller's own key or a fresh ulid.
        if (state.accountId !== principal.accountId || state.livemode !== principal.livemode)
          throw new Error(`payment ${payment.id} runs for another account or mode`);
        // The personal data as kept by the first attempt (a retry's milestones would have new ids).
        return await withDisputeTexts(db, withPersonal(state, await findPersonal(db, payment.id)));
      } catch (err) {
        // A retry (same Idempotency-Key) of a create whose first attempt's run has closed since:
        // answer with that payment, never start a second.
        if (!(err instanceof WorkflowExecutionAlreadyStartedError) || !call.resourceId) throw err;
        const existing = await within(call, () => temporal.workflow.getHandle(payment.id).query(getPaymentQuery))
          .then(async (state) => withPersonal(state, (await findPayment(db, scopeOf(principal), payment.id)) ?? payment))
          .catch(() => findPayment(db, scopeOf(principal), payment.id));
        if (!existing || existing.accountId !== principal.accountId || existing.livemode !== principal.livemode) throw err;
        return withDisputeTexts(db, existing);
      }
    },
  };
}
