/**
 * What each leaf of the custody trail says (docs/audit.md): per kind of movement, its natural key
 * (a repeated write never appends twice) and its canonical JSON. Pure; not imported by workflows.
 */
import { canonicalJson } from './canonicalJson.rules';
import type { HistoryEntry, PaymentState } from '../payments/paymentTypes.rules';

export const AUDIT_LEAF_KINDS = ['payment.transition', 'webhook.attempt', 'ledger.entry'] as const;
type AuditLeafKind = (typeof AUDIT_LEAF_KINDS)[number];

/** A leaf to append: where it belongs (for the owner's proof request) and the exact text hashed. */
export interface AuditLeaf {
  entryKey: string;
  kind: AuditLeafKind;
  paymentId: string | null;
  accountId: string | null;
  livemode: boolean | null;
  leaf: string;
}

/**
 * A status change: the payment's version, the transition and its money. Never an email address
 * or metadata: a leaf can never be erased, so it holds no personal data.
 */
export function transitionLeaf(state: PaymentState, entry: HistoryEntry): AuditLeaf {
  const body = {
    kind: 'payment.transition',
    payment_id: state.id,
    account_id: state.accountId,
    livemode: state.livemode,
    version: entry.seq,
    action: entry.action,
    from: entry.from,
    to: entry.to,
    event: entry.event,
    actor: entry.actor,
    reason: entry.reason,
    at: entry.at,
    amount_minor: state.amountMinor,
    amount_exponent: state.amountExponent,
    currency: state.currency,
  };
  return {
    entryKey: `transition:${state.id}:${entry.seq}`,
    kind: 'payment.transition',
    paymentId: state.id,
    accountId: state.accountId,
    livemode: state.livemode,
    leaf: canonicalJson(body),
  };
}

interface AttemptFacts {
  deliveryId: string;
  webhookId: string;
  paymentId: string | null;
  accountId: string;
  livemode: boolean;
  event: string;
  attempt: number;
  at: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The delivery's status after this attempt: succeeded, pending (a retry follows) or failed. */
  outcome: string;
}

/** One webhook delivery attempt's outcome (the receiver's answer text is not kept in the trail). */
export function webhookAttemptLeaf(a: AttemptFacts): AuditLeaf {
  const body = {
    kind: 'webhook.attempt',
    delivery_id: a.deliveryId,
    webhook_id: a.webhookId,
    payment_id: a.paymentId,
    account_id: a.accountId,
    livemode: a.livemode,
    event: a.event,
    attempt: a.attempt,
    at: a.at.toISOString(),
    status_code: a.statusCode,
    duration_ms: a.durationMs,
    error: a.error,
    outcome: a.outcome,
  };
  return {
    entryKey: `webhook_attempt:${a.deliveryId}:${a.attempt}`,
    kind: 'webhook.attempt',
    paymentId: a.paymentId,
    accountId: a.accountId,
    livemode: a.livemode,
    leaf: canonicalJson(body),
  };
}

interface LedgerEntryFacts {
  entryId: string;
  /** Null for a recipient's own movement (docs/money.md), which names its recipient instead. */
  paymentId: string | null;
  accountId: string;
  livemode: boolean;
  version: number;
  type: string;
  currency: string;
  exponent: number;
  at: string;
  postings: { account: string; amount: bigint }[];
  milestoneId?: string;
  /** The recipient whose accounts the entry credits (docs/money.md), when one. */
  recipientId?: string;
}

/** One ledger entry with its postings (integer minor units; they sum to zero). */
export function ledgerEntryLeaf(e: LedgerEntryFacts): AuditLeaf {
  const body = {
    kind: 'ledger.entry',
    entry_id: e.entryId,
    payment_id: e.paymentId,
    account_id: e.accountId,
    livemode: e.livemode,
    version: e.version,
    type: e.type,
    currency: e.currency,
    amount_exponent: e.exponent,
    at: e.at,
    postings: e.postings.map((p) => ({ ledger_account: p.account, amount_minor: p.amount })),
    // A payment created with milestones names the one whose money moved (docs/audit.md).
    ...(e.milestoneId === undefined ? {} : { milestone_id: e.milestoneId }),
    ...(e.recipientId === undefined ? {} : { recipient_id: e.recipientId }),
  };
  return {
    entryKey: `ledger:${e.entryId}`,
    kind: 'ledger.entry',
    paymentId: e.paymentId,
    accountId: e.accountId,
    livemode: e.livemode,
    leaf: canonicalJson(body),
  };
}
