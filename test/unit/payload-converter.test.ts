/**
 * Temporal payloads carry bigint money (src/platform/payloadConverter.workflow.ts; docs/money.md, "Integers
 * end to end"): as the JSON the UI shows, with the note of which values are bigint beside it.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { decode } from '@temporalio/common/lib/encoding';
import { describe, expect, it } from 'vitest';
import { BIGINT_PATHS_KEY, payloadConverter } from '../../src/platform/payloadConverter.workflow';

const state = {
  amountMinor: 9_007_199_254_740_993n,
  heldMinor: 0n,
  milestones: [{ id: 'ms_1', releasedMinor: 12n }],
  status: 'in_custody',
  version: 3,
};

describe('the payload converter', () => {
  it('gives back bigint as bigint, past the doubles’ exact range', () => {
    const back = payloadConverter.fromPayload<typeof state>(payloadConverter.toPayload(state));
    expect(back).toEqual(state);
    expect(typeof back.milestones[0].releasedMinor).toBe('bigint');
    expect(typeof back.version).toBe('number');
  });

  it('writes the JSON the Temporal UI shows, money as decimal text', () => {
    const payload = payloadConverter.toPayload(state);
    expect(JSON.parse(decode(payload.data!))).toEqual({
      amountMinor: '9007199254740993',
      heldMinor: '0',
      milestones: [{ id: 'ms_1', releasedMinor: '12' }],
      status: 'in_custody',
      version: 3,
    });
    expect(decode(payload.metadata!.encoding)).toBe('json/plain');
  });

  it('writes a value without bigint exactly as the SDK’s default converter', () => {
    const plain = { id: 'pay_1', at: '2026-11-27T00:00:00.000Z', n: 2 };
    const payload = payloadConverter.toPayload(plain);
    expect(payload.metadata?.[BIGINT_PATHS_KEY]).toBeUndefined();
    expect(payload).toEqual(defaultPayloadConverter.toPayload(plain));
  });

  it('reads a payload recorded before it, or typed in the UI, as plain JSON', () => {
    const recorded = defaultPayloadConverter.toPayload({ amountMinor: '1000', status: 'pending_deposit' });
    expect(payloadConverter.fromPayload(recorded)).toEqual({ amountMinor: '1000', status: 'pending_deposit' });
  });
});
