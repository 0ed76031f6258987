/** A webhook delivery attempt judged: which answers fail it, and when a failed delivery stops being retried. */
import { describe, expect, it } from 'vitest';
import { answerError, statusAfterAttempt } from '../../src/webhooks/deliveryAttempt.rules';

describe('answerError', () => {
  it('accepts every 2xx, from 200 to 299', () => {
    for (const code of [200, 201, 204, 299]) expect(answerError(code), String(code)).toBeNull();
  });

  it('fails anything else, naming the status: 1xx, redirects, client and server errors', () => {
    for (const code of [100, 199, 300, 301, 400, 410, 500, 503]) {
      expect(answerError(code)).toBe(`receiver answered HTTP ${code}`);
    }
  });
});

describe('statusAfterAttempt', () => {
  it('succeeds on any attempt that succeeded, even the last', () => {
    expect(statusAfterAttempt(false, 1, 5)).toBe('succeeded');
    expect(statusAfterAttempt(false, 5, 5)).toBe('succeeded');
  });

  it('stays pending while the retry policy has attempts left, and fails on the last', () => {
    expect(statusAfterAttempt(true, 1, 5)).toBe('pending');
    expect(statusAfterAttempt(true, 4, 5)).toBe('pending');
    expect(statusAfterAttempt(true, 5, 5)).toBe('failed');
    expect(statusAfterAttempt(true, 6, 5)).toBe('failed');
    expect(statusAfterAttempt(true, 1, 1)).toBe('failed');
  });
});
