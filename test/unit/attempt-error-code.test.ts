/** What the custody trail keeps of a failed attempt: a code that names no host (docs/audit.md). */
import { describe, expect, it } from 'vitest';
import { answerError, attemptErrorCode, refusedError, timeoutError } from '../../src/webhooks/deliveryAttempt.rules';

describe('attemptErrorCode', () => {
  it('maps each kind of delivery-log error to a code', () => {
    expect(attemptErrorCode(200, null)).toBeNull();
    expect(attemptErrorCode(503, answerError(503))).toBe('http_status');
    expect(attemptErrorCode(null, timeoutError(10_000))).toBe('timeout');
    expect(attemptErrorCode(null, 'ECONNREFUSED')).toBe('ECONNREFUSED');
    expect(attemptErrorCode(null, 'UND_ERR_SOCKET')).toBe('UND_ERR_SOCKET');
  });

  it('never passes on a text that may name the host', () => {
    for (const text of [
      refusedError('url host hooks.example.com does not resolve'),
      refusedError('hooks.example.com resolves to a private, loopback, link-local or metadata address'),
      'getaddrinfo ENOTFOUND hooks.example.com',
      'connect ECONNREFUSED 10.1.2.3:443',
      'HOOKS.EXAMPLE.COM',
    ]) {
      const code = attemptErrorCode(null, text);
      expect(code, text).toMatch(/^(url_refused|network_error)$/);
    }
  });
});
