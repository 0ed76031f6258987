/** What an erasure leaves in place of personal data, and a reason's keyed hash (src/payments/personalData.rules.ts). */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { DisputeState, EvidenceState, MilestoneState, OfferState, PaymentState } from '../../src/payments/paymentTypes.rules';
import type { MilestonePersonalFields, PaymentPersonalFields } from '../../src/payments/paymentRecord.rules';
import { paymentView } from '../../src/payments/payment.view';
import {
  REDACTED,
  isReasonHash,
  leafReason,
  reasonHash,
  redactView,
  redactedPersonal,
  withPersonal,
  withoutPersonal,
} from '../../src/payments/personalData.rules';
import { paymentDetails, paymentState } from './fixtures';
import { decode } from '@temporalio/common/lib/encoding';
import { payloadConverter } from '../../src/platform/payloadConverter.workflow';

const KEY = Buffer.alloc(32, 1);

describe('personal data', () => {
  it('the workflow carries the payment without its personal fields; the service puts them back', () => {
    const full = paymentDetails();
    const carried = withoutPersonal(full);
    expect(carried).toStrictEqual(paymentState());
    expect(decode(payloadConverter.toPayload(carried).data!)).not.toMatch(
      /example\.com|a lamp|"order"|payerEmail|recipientEmail|description|metadata/,
    );
    expect(withPersonal(carried, full)).toStrictEqual(full);
    // Only the personal fields come back: a later state's status and amounts stay.
    expect(withPersonal({ ...carried, status: 'released', version: 4 }, full)).toMatchObject({ status: 'released', version: 4 });
  });

  it("the workflow's types have no personal field and no dispute text (checked by the compiler)", () => {
    expectTypeOf<Extract<keyof PaymentState, keyof PaymentPersonalFields>>().toEqualTypeOf<never>();
    expectTypeOf<Extract<keyof MilestoneState, keyof MilestonePersonalFields>>().toEqualTypeOf<never>();
    expectTypeOf<Extract<keyof DisputeState, 'reasonText'>>().toEqualTypeOf<never>();
    expectTypeOf<Extract<keyof EvidenceState, 'text'>>().toEqualTypeOf<never>();
    expectTypeOf<Extract<keyof OfferState, 'note'>>().toEqualTypeOf<never>();
  });

  it('kept nothing for: the personal fields a run started with in its input, else none', () => {
    const full = paymentDetails();
    // A run started with them in its input (a recorded history, a test's own start) passes them on beyond its type.
    expect(withPersonal(full, undefined)).toStrictEqual(full);
    expect(withPersonal(paymentState(), undefined)).toStrictEqual(
      paymentDetails(paymentState(), { payerEmail: '', recipientEmail: '', description: null, metadata: {} }),
    );
  });

  it('an erasure shows "[redacted]" in place of each field that held something', () => {
    expect(redactedPersonal({ payerEmail: 'a@x.com', recipientEmail: 'b@x.com', description: 'lamp', metadata: { k: 'v' } })).toEqual({
      payerEmail: REDACTED,
      recipientEmail: REDACTED,
      description: REDACTED,
      metadata: { redacted: REDACTED },
    });
    expect(redactedPersonal({ payerEmail: 'a@x.com', recipientEmail: 'b@x.com', description: null, metadata: {} })).toEqual({
      payerEmail: REDACTED,
      recipientEmail: REDACTED,
      description: null,
      metadata: {},
    });
    expect(REDACTED).toBe('[redacted]');
  });

  it('a redacted view keeps its keys in order and every amount', () => {
    const view = paymentView(paymentDetails());
    const redacted = redactView(view);
    expect(Object.keys(redacted)).toEqual(Object.keys(view));
    expect(redacted).toEqual({
      ...view,
      payer_email: REDACTED,
      recipient_email: REDACTED,
      description: REDACTED,
      metadata: { redacted: REDACTED },
      milestones: view.milestones.map((m) => ({ ...m, recipient_email: REDACTED })),
    });
    expect(redactView(redacted)).toEqual(redacted);
  });

  it("a reason's keyed hash: stable under one key, different under another, and never the text", () => {
    const hash = reasonHash(KEY, 'the clock arrived scratched');
    expect(hash).toMatch(/^hmac:[0-9a-f]{64}$/);
    expect(isReasonHash(hash)).toBe(true);
    expect(isReasonHash('the clock arrived scratched')).toBe(false);
    // The whole text is the hash: nothing before it, nothing after.
    expect(isReasonHash(`x${hash}`)).toBe(false);
    expect(isReasonHash(`${hash}0`)).toBe(false);
    expect(isReasonHash(null)).toBe(false);
    expect(reasonHash(KEY, 'the clock arrived scratched')).toBe(hash);
    expect(reasonHash(Buffer.alloc(32, 2), 'the clock arrived scratched')).not.toBe(hash);
    // What a leaf holds: the hash as carried, a text hashed, nothing for no reason.
    expect(leafReason(KEY, hash)).toBe(hash);
    expect(leafReason(KEY, 'deposit deadline passed')).toBe(reasonHash(KEY, 'deposit deadline passed'));
    expect(leafReason(KEY, null)).toBeNull();
  });
});
