/**
 * Test mode gets the live URL rules (configure time, delivery time, DNS, connect
 * time), except loopback, which is allowed only while WEBHOOK_ALLOW_LOOPBACK is on.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { startReceiver } from './helpers/receiver';
import { eventually, useStack, validPayment, type Stack, type TestAccount } from './helpers/stack';

const quick = {
  WEBHOOK_RETRY_INITIAL_INTERVAL: '200ms',
  WEBHOOK_RETRY_MAX_INTERVAL: '400ms',
  WEBHOOK_MAX_ATTEMPTS: '2',
  WEBHOOK_TIMEOUT: '1s',
};
// Two stacks: the test default (loopback allowed) and one with WEBHOOK_ALLOW_LOOPBACK=false.
const open = useStack({ env: quick });
const closed = useStack({ env: { ...quick, WEBHOOK_ALLOW_LOOPBACK: 'false' } });

const configure = (stack: Stack, acct: TestAccount, url: string) =>
  stack.http.post('/api/v1/webhooks/configure', { key: acct.test_api_key, body: { url } });

const FORBIDDEN = [
  'https://169.254.169.254/latest/meta-data/',
  'http://169.254.169.254/latest/meta-data/',
  'https://10.0.0.1/hook',
  'http://10.0.0.1/hook',
  'https://[fd00::1]/hook',
  'https://metadata.google.internal/computeMetadata/v1/',
  'http://metadata.google.internal/computeMetadata/v1/',
  'https://192.168.1.10/hook',
  'https://172.16.0.5/hook',
  'https://100.64.0.1/hook',
  'https://[fe80::1]/hook',
  'https://[::ffff:10.0.0.1]/hook',
  'https://0.0.0.0/hook',
];

describe('test mode at configure time', () => {
  it('refuses metadata, link-local and private addresses with a 400 naming url', async () => {
    const acct = await open.newAccount();
    for (const url of FORBIDDEN) {
      const res = await configure(open, acct, url);
      expect(res.status, url).toBe(400);
      expect(res.body.error.code, url).toBe('invalid_request');
      expect(res.body.error.details?.[0]?.field, url).toBe('url');
    }
    const list = await open.http.get('/api/v1/webhooks', { key: acct.test_api_key });
    expect(list.body.data).toEqual([]);
  });

  it('allows loopback (plain http too) while WEBHOOK_ALLOW_LOOPBACK is on', async () => {
    const acct = await open.newAccount();
    for (const url of [
      'http://127.0.0.1:4567/hook',
      'http://localhost:4567/hook',
      'http://[::1]:4567/hook',
      'https://127.0.0.1:4567/hook',
    ]) {
      expect((await configure(open, acct, url)).status, url).toBe(201);
    }
  });

  it('refuses loopback in test mode when WEBHOOK_ALLOW_LOOPBACK=false', async () => {
    const acct = await closed.newAccount();
    for (const url of [
      'http://127.0.0.1:4567/hook',
      'http://localhost:4567/hook',
      'http://[::1]:4567/hook',
      'https://127.0.0.1:4567/hook',
      'https://localhost:4567/hook',
    ]) {
      const res = await configure(closed, acct, url);
      expect(res.status, url).toBe(400);
      expect(res.body.error.details?.[0]?.field, url).toBe('url');
    }
  });

  it('live mode never allows loopback, whatever WEBHOOK_ALLOW_LOOPBACK says', async () => {
    const acct = await open.newAccount();
    const res = await open.http.post('/api/v1/webhooks/configure', {
      key: acct.live_api_key,
      body: { url: 'https://127.0.0.1:4567/hook' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details?.[0]?.field).toBe('url');
  });
});

describe('live mode: IANA special-purpose ranges that are not globally reachable', () => {
  const RESERVED = [
    'https://192.0.2.10/hook',
    'https://198.51.100.7/hook',
    'https://203.0.113.200/hook',
    'https://[2001:db8::1]/hook',
    'https://[100::1]/hook',
    'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook',
    'https://[::ffff:0:c000:20a]/hook',
    'https://[::ffff:192.0.2.10]/hook',
  ];

  it('refuses them at configure with a 400 naming url; test mode may still name them', async () => {
    const acct = await open.newAccount();
    for (const url of RESERVED) {
      const res = await open.http.post('/api/v1/webhooks/configure', { key: acct.live_api_key, body: { url } });
      expect(res.status, url).toBe(400);
      expect(res.body.error.details?.[0], url).toMatchObject({ field: 'url' });
    }
    expect((await configure(open, acct, 'https://192.0.2.10/hook')).status).toBe(201);
  });

  it('refuses them at delivery: one refused attempt', async () => {
    const acct = await open.newAccount();
    const id = await planted(open, acct, 'https://[2001:db8::1]/hook', true);
    expect((await open.http.post('/api/v1/payments', { key: acct.live_api_key, body: validPayment() })).status).toBe(201);
    const log = await eventually(
      async () => {
        const d = (await open.http.get(`/api/v1/webhooks/${id}/deliveries`, { key: acct.live_api_key })).body.data;
        return d[0]?.status === 'failed' ? d : undefined;
      },
      20_000,
      'refused delivery',
    );
    expect(log[0].attempts).toHaveLength(1);
    expect(log[0].attempts[0].error).toMatch(/^refused: .*not globally reachable/);
  });

  it('the live resolver and connect-time agent refuse them too', async () => {
    const { isAllowedAddress } = await import('../src/webhooks/urlPolicy');
    for (const a of [
      '192.0.2.1',
      '198.51.100.1',
      '203.0.113.1',
      '2001:db8::5',
      '100::7',
      '2001::1',
      '::ffff:0:102:304',
      '::ffff:203.0.113.9',
    ]) {
      expect(isAllowedAddress(a, { livemode: true, allowLoopback: false }), a).toBe(false);
      expect(isAllowedAddress(a, { livemode: false, allowLoopback: true }), a).toBe(true);
    }
    for (const a of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '100:0:0:1::1', '2001:4860::8888']) {
      expect(isAllowedAddress(a, { livemode: true, allowLoopback: false }), a).toBe(true);
    }
  });
});

/** A configuration written past the configure-time check (as if its host changed since). */
async function planted(stack: Stack, acct: TestAccount, url: string, livemode = false) {
  const id = `wh_planted${randomBytes(6).toString('hex')}`;
  await stack.db('webhooks').insert({
    id,
    account_id: acct.account_id,
    livemode,
    url,
    secret: `whsec_${randomBytes(24).toString('base64')}`,
    events: ['payment.created'],
    active: true,
  });
  return id;
}

describe('test mode at delivery time', () => {
  const refusedLog = (stack: Stack, acct: TestAccount, id: string) =>
    eventually(
      async () => {
        const d = (await stack.http.get(`/api/v1/webhooks/${id}/deliveries`, { key: acct.test_api_key })).body.data;
        return d[0]?.status === 'failed' ? d : undefined;
      },
      20_000,
      'refused delivery',
    );

  it('refuses a private address at delivery time: one refused attempt, nothing sent', async () => {
    const acct = await open.newAccount();
    const id = await planted(open, acct, 'https://10.0.0.1/hook');
    expect((await open.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() })).status).toBe(201);
    const log = await refusedLog(open, acct, id);
    expect(log[0].attempts).toHaveLength(1);
    expect(log[0].attempts[0].error).toMatch(/^refused: /);
  });

  it('refuses a loopback receiver at delivery time when WEBHOOK_ALLOW_LOOPBACK=false, and sends nothing there', async () => {
    const receiver = await startReceiver();
    try {
      const acct = await closed.newAccount();
      // A name that resolves to loopback: refused by the name rule, the DNS check and the connect-time check.
      const id = await planted(closed, acct, receiver.url.replace('127.0.0.1', 'localhost'));
      expect((await closed.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment() })).status).toBe(201);
      const log = await refusedLog(closed, acct, id);
      expect(log[0].attempts).toHaveLength(1);
      expect(log[0].attempts[0].error).toMatch(/^refused: /);
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });
});

describe('DNS and connect-time checks', () => {
  it('a name resolving to loopback passes the DNS check only when loopback is allowed in test mode', async () => {
    const { checkResolvedHost } = await import('../src/webhooks/urlPolicy');
    const url = new URL('https://localhost/hook');
    expect((await checkResolvedHost(url, { livemode: false, allowLoopback: true, loopbackPorts: [[443, 443]] })).ok).toBe(true);
    expect((await checkResolvedHost(url, { livemode: false, allowLoopback: true })).ok).toBe(false);
    expect((await checkResolvedHost(url, { livemode: false, allowLoopback: false })).ok).toBe(false);
    expect((await checkResolvedHost(url, { livemode: true, allowLoopback: true })).ok).toBe(false);
  });

  it('the test-mode delivery agent connects to loopback only when it is allowed and the checks found the target there', async () => {
    const { deliveryAgent } = await import('../src/webhooks/urlPolicy');
    const receiver = await startReceiver();
    try {
      const url = receiver.url.replace('127.0.0.1', 'localhost');
      const ok = await fetch(url, {
        method: 'POST',
        body: '{}',
        dispatcher: deliveryAgent({ livemode: false, allowLoopback: true }, true),
      });
      expect(ok.status).toBe(200);
      // Loopback off, or a target the checks found elsewhere (a name rebound to loopback since): refused at connect.
      for (const [allowLoopback, loopbackTarget] of [
        [false, true],
        [true, false],
      ]) {
        const err = await fetch(url, {
          method: 'POST',
          body: '{}',
          dispatcher: deliveryAgent({ livemode: false, allowLoopback }, loopbackTarget),
        }).then(
          () => undefined,
          (e: Error & { cause?: { code?: string } }) => e,
        );
        expect(err?.cause?.code, `allowLoopback ${allowLoopback}, loopback target ${loopbackTarget}`).toBe('EBLOCKEDADDRESS');
      }
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});
