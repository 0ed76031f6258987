/**
 * A payout as the API, its events and its webhooks show it (docs/payouts.md): the amount in major
 * units through its stored exponent, the failure's code and message. One zod schema, for the type
 * and the OpenAPI document.
 */
import { z } from 'zod';
import { toMajor } from '../ledger/money.rules';
import {
  PAYOUT_FAILURE_CODES,
  PAYOUT_FAILURE_MESSAGES,
  PAYOUT_STATUSES,
  type PayoutEvent,
  type PayoutFailureCode,
  type PayoutStatus,
} from './payout.rules';

export const PayoutViewSchema = z.object({
  id: z.string().describe('po_…'),
  object: z.literal('payout'),
  recipient: z.string().describe('rcp_…'),
  bank_account: z.string().describe('ba_…'),
  amount: z.number().describe('Major units'),
  currency: z.string(),
  status: z.enum(PAYOUT_STATUSES),
  failure_code: z.enum(PAYOUT_FAILURE_CODES).nullable().describe('Why it failed or came back; null otherwise'),
  failure_message: z.string().nullable(),
  end_to_end_id: z.string().describe('The reference the bank carries in every file about it (ISO 20022 EndToEndId)'),
  created_at: z.string(),
  livemode: z.boolean(),
});
export type PayoutView = z.infer<typeof PayoutViewSchema>;

/** What a payout row holds. */
export interface PayoutFields {
  id: string;
  recipient_id: string;
  bank_account_id: string;
  /** Minor units (src/payouts/payouts.repository.ts's `payoutRow` reads PostgreSQL's text as bigint). */
  amount: bigint;
  currency: string;
  amount_exponent: number;
  status: PayoutStatus;
  failure_code: PayoutFailureCode | null;
  end_to_end_id: string;
  created_at: Date;
  livemode: boolean;
}

export function payoutView(p: PayoutFields): PayoutView {
  return {
    id: p.id,
    object: 'payout',
    recipient: p.recipient_id,
    bank_account: p.bank_account_id,
    amount: toMajor(p.amount, p.currency, p.amount_exponent),
    currency: p.currency,
    status: p.status,
    failure_code: p.failure_code,
    failure_message: p.failure_code === null ? null : PAYOUT_FAILURE_MESSAGES[p.failure_code],
    end_to_end_id: p.end_to_end_id,
    created_at: p.created_at.toISOString(),
    livemode: p.livemode,
  };
}

/** A `payout.*` event's body (docs/webhooks.md): the payout in `data`, its version in `sequence`. */
export interface PayoutEnvelope {
  event: PayoutEvent;
  payout_id: string;
  timestamp: string;
  sequence: number;
  data: PayoutView;
}

export function payoutEnvelope(p: PayoutFields & { version: number; updated_at: Date }, event: PayoutEvent): PayoutEnvelope {
  return { event, payout_id: p.id, timestamp: p.updated_at.toISOString(), sequence: p.version, data: payoutView(p) };
}
