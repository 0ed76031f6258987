/** The payment as the API and webhooks show it, its webhook envelope, and its lines in the Temporal UI. */
import { describe, expect, it } from 'vitest';
import { PaymentViewSchema, paymentView } from '../../src/payments/payment.view';
import type { HistoryEntry } from '../../src/payments/paymentTypes.rules';
import { details, movementText, stepSummary, summary } from '../../src/payments/paymentSummary.rules';
import { envelope } from '../../src/webhooks/webhookEnvelope.view';
import { paymentDetails, paymentState } from './fixtures';
import { fundingReferenceOf } from '../../src/payments/fundingReference.rules';

const VIEW = {
  id: 'pay_01JD0000000000000000000000',
  object: 'payment',
  amount: 125.5,
  currency: 'USD',
  platform_fee: 0,
  amount_held: 0,
  amount_released: 0,
  amount_refunded: 0,
  fee_collected: 0,
  status: 'pending_deposit',
  payer_email: 'payer@example.com',
  recipient_email: 'seller@example.com',
  description: 'a lamp',
  metadata: { order: '42' },
  livemode: false,
  deposit_deadline: '2026-11-30T12:00:00.000Z',
  auto_release_after_seconds: null,
  funding: 'api',
  funding_reference: fundingReferenceOf('pay_01JD0000000000000000000000'),
  funding_instructions: null,
  funded_by: null,
  milestones: [
    {
      id: 'ms_01JD0000000000000000000000',
      reference: null,
      description: null,
      amount: 125.5,
      recipient_email: 'seller@example.com',
      status: 'pending_deposit',
      amount_held: 0,
      amount_released: 0,
      amount_refunded: 0,
      fee_collected: 0,
      release_at: null,
      dispute: null,
    },
  ],
  dispute: null,
  created_at: '2026-11-23T12:00:00.000Z',
  updated_at: '2026-11-23T12:00:00.000Z',
};

describe('paymentView', () => {
  it('maps every field, the amount in major units', () => {
    expect(paymentView(paymentDetails(paymentState()))).toStrictEqual(VIEW);
  });

  it("tells a bank_transfer payment's payer where to transfer, with the reference, what came in and what is left until the deadline", () => {
    const custody = { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', name: 'Escrow Operator Ltd' };
    const view = paymentView(paymentDetails(paymentState({ funding: 'bank_transfer', custody, amountReceivedMinor: 5000n })));
    expect(view.funding).toBe('bank_transfer');
    expect(view.funding_instructions).toStrictEqual({
      type: 'bank_transfer',
      iban: 'DE89370400440532013000',
      bic: 'COBADEFFXXX',
      account_holder_name: 'Escrow Operator Ltd',
      reference: VIEW.funding_reference,
      amount: 125.5,
      currency: 'USD',
      amount_received: 50,
      amount_remaining: 75.5,
      expires_at: '2026-11-30T12:00:00.000Z',
    });
    expect(PaymentViewSchema.parse(view)).toStrictEqual(view);
    expect(view.funded_by).toBeNull();
    // Once deposited, the event says how: the bank's credit, or the platform's report.
    expect(
      paymentView(paymentDetails(paymentState({ funding: 'bank_transfer', custody, status: 'in_custody', heldMinor: 12550n }))).funded_by,
    ).toBe('bank_transfer');
    expect(paymentView(paymentDetails(paymentState({ status: 'released', releasedMinor: 12550n }))).funded_by).toBe('api');
    // A payment created before funding by transfer is the platform's to report.
    const old = paymentView(paymentDetails(paymentState()));
    expect([old.funding, old.funding_instructions]).toStrictEqual(['api', null]);
  });

  it('passes status, mode, nulls and the auto-release through', () => {
    const view = paymentView(
      paymentDetails(
        paymentState({ status: 'disputed', livemode: true, autoReleaseAfterSeconds: 86_400, updatedAt: '2026-11-24T00:00:00.000Z' }),
        { description: null },
      ),
    );
    expect(view).toMatchObject({
      status: 'disputed',
      livemode: true,
      description: null,
      auto_release_after_seconds: 86_400,
      updated_at: '2026-11-24T00:00:00.000Z',
    });
  });

  it('shows the money in major units: the fee, held, released, refunded and the fee collected', () => {
    const view = paymentView(
      paymentDetails(
        paymentState({
          status: 'released',
          platformFeeMinor: 300n,
          heldMinor: 0n,
          releasedMinor: 10000n,
          refundedMinor: 2550n,
          feeCollectedMinor: 239n,
        }),
      ),
    );
    expect(view).toMatchObject({
      amount: 125.5,
      platform_fee: 3,
      amount_held: 0,
      amount_released: 100,
      amount_refunded: 25.5,
      fee_collected: 2.39,
    });
    expect(
      paymentView(
        paymentDetails(paymentState({ status: 'in_custody', currency: 'KWD', amountMinor: 1005n, amountExponent: 3, heldMinor: 1005n })),
      ),
    ).toMatchObject({
      amount_held: 1.005,
      platform_fee: 0,
    });
  });

  it('scales the amount by the exponent stored with it', () => {
    expect(paymentView(paymentDetails(paymentState({ currency: 'KWD', amountMinor: 1005n, amountExponent: 3 }))).amount).toBe(1.005);
    expect(paymentView(paymentDetails(paymentState({ currency: 'HUF', amountMinor: 1050n, amountExponent: 2 }))).amount).toBe(10.5);
    expect(paymentView(paymentDetails(paymentState({ currency: 'HUF', amountMinor: 1050n, amountExponent: 0 }))).amount).toBe(1050);
  });

  it('is what the response schema accepts, and the schema refuses anything else', () => {
    expect(PaymentViewSchema.parse(VIEW)).toStrictEqual(VIEW);
    expect(PaymentViewSchema.safeParse({ ...VIEW, description: null, auto_release_after_seconds: 60 }).success).toBe(true);
    for (const bad of [
      { ...VIEW, object: 'list' },
      { ...VIEW, status: 'lost' },
      { ...VIEW, amount: '125.50' },
      { ...VIEW, metadata: { order: 42 } },
      { ...VIEW, livemode: 'false' },
      { ...VIEW, id: undefined },
    ]) {
      expect(PaymentViewSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    expect(PaymentViewSchema.shape.id.description).toBe('pay_ + ULID; also the Temporal workflow ID');
    expect(PaymentViewSchema.shape.fee_collected.description).toBe('floor(platform_fee × amount_released / amount), in minor units');
    expect(PaymentViewSchema.shape.platform_fee.description).toBe(
      "The platform's commission, taken from what the recipient receives (docs/money.md)",
    );
    expect(PaymentViewSchema.shape.amount_held.description).toBe('In custody now; from deposit on, held + released + refunded = amount');
    expect(PaymentViewSchema.shape.amount_released.description).toBe('Released to the recipient, before the fee');
    expect(PaymentViewSchema.shape.amount_refunded.description).toBe('Refunded to the payer');
  });
});

describe('envelope', () => {
  it('is the event, the payment id, the time, the version as sequence and the view, in that order', () => {
    const state = paymentState({ status: 'in_custody', version: 2, heldMinor: 12550n });
    const body = envelope('payment.deposited', '2026-11-24T08:00:00.000Z', paymentView(paymentDetails(state)), state.version);
    expect(body).toStrictEqual({
      event: 'payment.deposited',
      payment_id: 'pay_01JD0000000000000000000000',
      timestamp: '2026-11-24T08:00:00.000Z',
      sequence: 2,
      data: {
        ...VIEW,
        status: 'in_custody',
        funded_by: 'api',
        amount_held: 125.5,
        milestones: [{ ...VIEW.milestones[0], status: 'in_custody', amount_held: 125.5 }],
      },
    });
    // The body is signed as serialised: the key order is part of the contract.
    expect(Object.keys(body)).toEqual(['event', 'payment_id', 'timestamp', 'sequence', 'data']);
  });
});

describe('the Temporal UI lines: the money story, nothing personal', () => {
  const money = { platformFeeMinor: 555n, heldMinor: 0n, releasedMinor: 11111n, refundedMinor: 8888n, feeCollectedMinor: 308n };
  const split = paymentState({ status: 'released', amountMinor: 19999n, ...money });
  const resolve: HistoryEntry = {
    seq: 5,
    action: 'resolve',
    from: 'disputed',
    to: 'released',
    event: 'payment.released',
    actor: 'key_abc',
    reason: null,
    at: '2026-11-24T08:00:00.000Z',
    movement: { deposited: 0n, refunded: 8888n, released: 11111n, fee: 308n },
  };

  it('summary: amount, currency and fee; no party', () => {
    expect(summary(split)).toBe('199.99 USD, fee 5.55');
    expect(summary(paymentState({ currency: 'JPY', amountMinor: 1500n, amountExponent: 0, platformFeeMinor: 0n }))).toBe('1500 JPY, fee 0');
  });

  it('details: status and amount, what is held, released, refunded and the fee, and the last step with its actor', () => {
    expect(details(split, resolve)).toBe(
      ['**released** — 199.99 USD · last **resolve** by key_abc', 'held 0.00 · released 111.11 · refunded 88.88 · fee 3.08 USD'].join(
        '\n\n',
      ),
    );
    expect(details(paymentState({ status: 'released', currency: 'KWD', amountMinor: 1005n, amountExponent: 3, ...money }))).toMatch(
      /^\*\*released\*\* — 1\.005 KWD\n\nheld 0\.000 · /,
    );
  });

  it('an activity summary names the movement and its amounts', () => {
    expect(stepSummary('publish', split, resolve)).toBe(
      'publish resolve → released (v5) — split: 88.88 refunded, 111.11 released, fee 3.08',
    );
    const deposit = {
      ...resolve,
      action: 'deposit' as const,
      seq: 2,
      movement: { deposited: 19999n, refunded: 0n, released: 0n, fee: 0n },
    };
    expect(stepSummary('publish', split, deposit)).toBe('publish deposit → released (v2) — deposit: 199.99 held');
    const refund = { ...resolve, action: 'refund' as const, movement: { deposited: 0n, refunded: 100n, released: 0n, fee: 0n } };
    expect(movementText(split, refund.movement)).toBe('refund: 1.00 refunded');
    expect(stepSummary('publish', split, { ...resolve, action: 'approve', movement: undefined })).toBe('publish approve → released (v5)');
    expect(stepSummary('publish', split, { ...resolve, action: 'approve', milestoneId: 'ms_2', movement: undefined })).toBe(
      'publish approve ms_2 → released (v5)',
    );
  });

  it('details of a payment created with milestones count them by status', () => {
    const [whole] = paymentState().milestones;
    const staged = paymentState({
      status: 'in_custody',
      staged: true,
      milestones: [
        { ...whole, id: 'ms_1', status: 'released' },
        { ...whole, id: 'ms_2', status: 'in_custody' },
        { ...whole, id: 'ms_3', status: 'released' },
      ],
    });
    expect(details(staged).split('\n\n')[2]).toBe('3 milestones: 2 released · 1 in_custody');
    expect(details({ ...staged, staged: false }).split('\n\n')).toHaveLength(2);
  });
});
