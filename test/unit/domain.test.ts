import { describe, expect, it } from 'vitest';
import { formatMajor, isCurrency, minorUnits, toMajor, toMinor } from '../../src/ledger/money.rules';
import { PAYMENT_EVENTS, PAYMENT_STATUSES } from '../../src/payments/paymentTypes.rules';
import { TRANSITIONS, checkTransition, isTerminal } from '../../src/payments/payment.rules';
import { MILESTONE_EVENTS } from '../../src/payments/milestones.rules';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetch as undiciFetch } from 'undici';
import { checkResolvedHost, checkWebhookUrl, isBlockedAddress, liveDeliveryAgent } from '../../src/webhooks/urlPolicy';
import { signWebhookBody, verifyWebhookSignature } from '../../src';

describe('money', () => {
  it('knows ISO 4217 minor units', () => {
    expect([minorUnits('USD'), minorUnits('JPY'), minorUnits('KWD'), minorUnits('EUR')]).toEqual([2, 0, 3, 2]);
    expect(isCurrency('USD')).toBe(true);
    expect(isCurrency('XYZ')).toBe(false);
    expect(isCurrency('usd')).toBe(false);
  });

  it('converts to minor units exactly, digit by digit', () => {
    expect(toMinor(0.1, 'USD')).toEqual({ ok: true, minor: 10n });
    expect(toMinor(0.29, 'USD')).toEqual({ ok: true, minor: 29n }); // 0.29 * 100 = 28.999999999999996 in floating point
    expect(toMinor(1.005, 'KWD')).toEqual({ ok: true, minor: 1005n });
    expect(toMinor(1e21, 'JPY')).toEqual({ ok: true, minor: 1_000_000_000_000_000_000_000n });
    expect(toMinor(1e-7, 'USD').ok).toBe(false);
    expect(toMinor(0.1 + 0.2, 'USD').ok).toBe(false); // 0.30000000000000004
    expect(toMinor(Number.POSITIVE_INFINITY, 'USD').ok).toBe(false);
    expect(toMinor(Number.NaN, 'USD').ok).toBe(false);
  });

  it('formats minor units back without floating-point arithmetic', () => {
    expect(formatMajor(1050n, 'USD')).toBe('10.50');
    expect(formatMajor(5n, 'KWD')).toBe('0.005');
    expect(formatMajor(1500n, 'JPY')).toBe('1500');
    expect(toMajor(29n, 'USD')).toBe(0.29);
  });
});

describe('state machine table', () => {
  it('covers every status and event of the spec', () => {
    const reachable = new Set(['pending_deposit', ...TRANSITIONS.map((t) => t.to)]);
    expect([...reachable].sort()).toEqual([...PAYMENT_STATUSES].sort());
    // payment.partially_funded is a bank credit's step, outside the table (src/payments/bankFunding.rules.ts).
    const emitted = new Set([
      'payment.created',
      'payment.test',
      'payment.partially_funded',
      ...TRANSITIONS.map((t) => t.event),
      ...Object.values(MILESTONE_EVENTS),
    ]);
    expect([...emitted].sort()).toEqual([...PAYMENT_EVENTS].sort());
  });

  it('has no way out of a terminal status', () => {
    for (const status of PAYMENT_STATUSES.filter(isTerminal)) {
      expect(TRANSITIONS.filter((t) => t.from.includes(status))).toEqual([]);
    }
  });

  it('resolve needs a resolution', () => {
    expect(checkTransition('disputed', 'resolve')).toMatchObject({ ok: false, reason: 'resolution_required' });
    expect(checkTransition('disputed', 'resolve', 'refund')).toMatchObject({ ok: true, transition: { to: 'refunded' } });
  });
});

describe('webhook URL policy', () => {
  const LIVE = { livemode: true, allowLoopback: false };
  // Test mode with WEBHOOK_ALLOW_LOOPBACK on and port 4000 listed in WEBHOOK_LOOPBACK_PORTS.
  const TEST = { livemode: false, allowLoopback: true, loopbackPorts: [[4000, 4000]] as const };
  it('blocks private, loopback, link-local and metadata addresses', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:10.0.0.1',
      '::127.0.0.1',
      '64:ff9b::a00:1',
      '2002:a00:1::1',
      'fec0::1',
    ]) {
      expect(isBlockedAddress(a), a).toBe(true);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:2800:220:1:248:1893:25c8:1946']) expect(isBlockedAddress(a), a).toBe(false);
  });

  it('refuses a name that resolves to loopback (the check run at configure and delivery time)', async () => {
    expect(await checkResolvedHost(new URL('https://localhost/hook'), LIVE)).toMatchObject({
      ok: false,
      message: expect.stringContaining('resolves to a private'),
    });
    expect(await checkResolvedHost(new URL('https://93.184.216.34/hook'), LIVE)).toMatchObject({ ok: true });
  });

  it('allows plain http only to loopback in test mode (while WEBHOOK_ALLOW_LOOPBACK is on)', () => {
    expect(checkWebhookUrl('http://127.0.0.1:4000/x', TEST).ok).toBe(true);
    expect(checkWebhookUrl('http://localhost:4000/x', TEST).ok).toBe(true);
    expect(checkWebhookUrl('http://127.0.0.1:4000/x', LIVE).ok).toBe(false);
    expect(checkWebhookUrl('http://example.com/x', TEST).ok).toBe(false);
    expect(checkWebhookUrl('https://example.com/x', LIVE).ok).toBe(true);
    expect(checkWebhookUrl('https://user:pw@example.com/x', TEST).ok).toBe(false);
  });
});

describe('signatures', () => {
  it('verifies in constant time and refuses anything but the exact hex HMAC', () => {
    const body = '{"event":"payment.created"}';
    const sig = signWebhookBody(body, 'secret');
    expect(sig).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(body, sig, 'secret')).toBe(true);
    expect(verifyWebhookSignature(Buffer.from(body), sig, 'secret')).toBe(true);
    expect(verifyWebhookSignature(body, sig.toUpperCase(), 'secret')).toBe(false);
    expect(verifyWebhookSignature(body, sig, 'other')).toBe(false);
    expect(verifyWebhookSignature(`${body} `, sig, 'secret')).toBe(false);
    expect(verifyWebhookSignature(body, undefined, 'secret')).toBe(false);
    expect(verifyWebhookSignature(body, 'abc', 'secret')).toBe(false);
  });
});

describe('live-mode delivery agent', () => {
  it('refuses at connect time a name that resolves to a private address (no DNS rebinding window)', async () => {
    const server = http.createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const port = (server.address() as AddressInfo).port;
      // The same request without the agent reaches the server: the refusal is the agent's doing.
      expect((await undiciFetch(`http://localhost:${port}/`)).status).toBe(200);
      const refused = await undiciFetch(`http://localhost:${port}/`, { dispatcher: liveDeliveryAgent }).then(
        () => undefined,
        (err: Error & { cause?: { code?: string } }) => err.cause?.code,
      );
      expect(refused).toBe('EBLOCKEDADDRESS');
    } finally {
      server.close();
    }
  });
});
