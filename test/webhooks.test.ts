import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ulid } from 'ulid';
import { PAYMENT_EVENTS } from '../src/payments/paymentTypes.rules';
import { paymentWorkflow, transitionSignal } from '../src/platform/workflows.workflow';
import { freePort } from '../src/platform/lib/net';
import { verifyWebhookSignature } from '../src';
import { startReceiver } from './helpers/receiver';
import { FAST_WEBHOOK_RETRIES, configureWebhook, samplePaymentDetails, untilDeliveries } from './helpers/webhooks';
import { eventually, useStack, validPayment, type TestAccount } from './helpers/stack';

const stack = useStack({ env: FAST_WEBHOOK_RETRIES });

/** An independent HMAC over the exact bytes received: not the service's own helper. */
const hmac = (raw: Buffer, secret: string) => createHmac('sha256', secret).update(raw).digest('hex');

const configure = (acct: TestAccount, url: string, events?: string[], key = acct.test_api_key) => configureWebhook(stack, key, url, events);

async function pay(acct: TestAccount, actions: string[], key = acct.test_api_key, body?: unknown) {
  const p = await stack.http.post('/api/v1/payments', { key, body: validPayment() });
  expect(p.status).toBe(201);
  for (const action of actions) {
    // `body` goes with the action it is for: resolve's resolution, or a partial refund's amount.
    const forAction = action === 'resolve' || (action === 'refund' && body !== undefined) ? body : undefined;
    const res = await stack.http.post(`/api/v1/payments/${p.body.id}/${action}`, { key, body: forAction });
    expect(res.status, `${action}: ${JSON.stringify(res.body)}`).toBe(200);
  }
  return p.body.id as string;
}

describe('configuration', () => {
  it('answers exactly as the spec shows and never shows the secret again', async () => {
    const acct = await stack.newAccount();
    // Test mode checks DNS as live mode does, and this sandbox resolves no public name: a loopback receiver address.
    const res = await stack.http.post('/api/v1/webhooks/configure', {
      key: acct.test_api_key,
      body: { url: 'https://127.0.0.1:9/custody' },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['success', 'webhook']);
    expect(res.body.success).toBe(true);
    expect(Object.keys(res.body.webhook).sort()).toEqual(['active', 'events', 'id', 'secret', 'url']);
    expect(res.body.webhook).toMatchObject({ url: 'https://127.0.0.1:9/custody', active: true, events: [...PAYMENT_EVENTS] });
    const list = await stack.http.get('/api/v1/webhooks', { key: acct.test_api_key });
    expect(list.body.data.map((w: any) => w.id)).toEqual([res.body.webhook.id]);
    expect(JSON.stringify(list.body)).not.toContain(res.body.webhook.secret);
    // A bearer token works too.
    const token = (await stack.http.post('/api/v1/auth/login', { body: { email: acct.email, password: acct.password } })).body.token;
    const viaToken = await stack.http.post('/api/v1/webhooks/configure', {
      token,
      body: { url: 'https://127.0.0.1:9/other', events: ['payment.released'] },
    });
    expect(viaToken.status).toBe(201);
    expect(viaToken.body.webhook.events).toEqual(['payment.released']);
    // Rotation returns a new secret once.
    const rotated = await stack.http.post(`/api/v1/webhooks/${res.body.webhook.id}/rotate-secret`, { key: acct.test_api_key });
    expect(rotated.body.webhook.secret).toMatch(/^whsec_/);
    expect(rotated.body.webhook.secret).not.toBe(res.body.webhook.secret);
    // Other accounts and the other mode see nothing.
    const other = await stack.newAccount();
    expect((await stack.http.delete(`/api/v1/webhooks/${res.body.webhook.id}`, { key: other.test_api_key })).status).toBe(404);
    expect((await stack.http.delete(`/api/v1/webhooks/${res.body.webhook.id}`, { key: acct.live_api_key })).status).toBe(404);
    expect((await stack.http.get('/api/v1/webhooks', { key: acct.live_api_key })).body.data).toEqual([]);
  });

  const bad: [string, Record<string, unknown>, 'test' | 'live', string][] = [
    ['unknown event name', { url: 'https://h.example.com', events: ['payment.exploded'] }, 'test', 'events.0'],
    ['duplicate event names', { url: 'https://h.example.com', events: ['payment.created', 'payment.created'] }, 'test', 'events'],
    ['empty event list', { url: 'https://h.example.com', events: [] }, 'test', 'events'],
    ['relative url', { url: '/hooks' }, 'test', 'url'],
    ['ftp url', { url: 'ftp://h.example.com/x' }, 'test', 'url'],
    ['plain http to a public host', { url: 'http://h.example.com/x' }, 'test', 'url'],
    ['plain http to loopback in live mode', { url: 'http://127.0.0.1:9/x' }, 'live', 'url'],
    ['live: loopback address', { url: 'https://127.0.0.1/x' }, 'live', 'url'],
    ['live: localhost', { url: 'https://localhost/x' }, 'live', 'url'],
    ['live: private address', { url: 'https://10.1.2.3/x' }, 'live', 'url'],
    ['live: link-local metadata address', { url: 'https://169.254.169.254/latest' }, 'live', 'url'],
    ['live: IPv6 loopback', { url: 'https://[::1]/x' }, 'live', 'url'],
    ['live: IPv4-mapped private address', { url: 'https://[::ffff:192.168.0.1]/x' }, 'live', 'url'],
    ['live: a host that does not resolve', { url: 'https://does-not-exist.invalid/x' }, 'live', 'url'],
    ['missing url', { events: ['payment.created'] }, 'test', 'url'],
  ];
  it.each(bad)('refuses %s with a 400 and stores nothing', async (_name, body, mode, field) => {
    const acct = await stack.newAccount();
    const key = mode === 'live' ? acct.live_api_key : acct.test_api_key;
    const res = await stack.http.post('/api/v1/webhooks/configure', { key, body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details.map((d: any) => d.field)).toContain(field);
    expect((await stack.http.get('/api/v1/webhooks', { key })).body.data).toEqual([]);
  });
});

describe('delivery', () => {
  it('create → deposit → approve → release: four signed deliveries, one per transition', async () => {
    const acct = await stack.newAccount();
    const receiver = await startReceiver();
    try {
      const hook = await configure(acct, receiver.url);
      const id = await pay(acct, ['deposit', 'approve', 'release']);
      await eventually(async () => (receiver.received.length >= 4 ? true : undefined), 20_000, 'four deliveries');
      const byEvent = new Map(receiver.received.map((r) => [r.body.event, r]));
      expect([...byEvent.keys()].sort()).toEqual(['payment.approved', 'payment.created', 'payment.deposited', 'payment.released']);
      const statusOf: Record<string, string> = {
        'payment.created': 'pending_deposit',
        'payment.deposited': 'in_custody',
        'payment.approved': 'pending_release',
        'payment.released': 'released',
      };
      for (const r of receiver.received) {
        expect(r.headers['content-type']).toBe('application/json');
        expect(r.headers['x-service-signature']).toBe(hmac(r.raw, hook.secret));
        expect(verifyWebhookSignature(r.raw, r.headers['x-service-signature'] as string, hook.secret)).toBe(true);
        expect(r.headers['x-service-event']).toBe(r.body.event);
        expect(r.headers['x-service-delivery']).toMatch(/^dlv_/);
        expect(Object.keys(r.body).sort()).toEqual(['data', 'event', 'payment_id', 'sequence', 'timestamp']);
        expect(r.raw.toString('utf8')).toBe(JSON.stringify(r.body)); // compact JSON, the exact bytes signed
        expect(r.body.payment_id).toBe(id);
        expect(r.body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        expect(r.body.data).toMatchObject({
          id,
          amount: 125.5,
          currency: 'USD',
          status: statusOf[r.body.event],
          payer_email: 'payer@example.com',
          recipient_email: 'recipient@example.com',
        });
      }
      expect(new Set(receiver.received.map((r) => r.headers['x-service-delivery'])).size).toBe(4);
      const log = await untilDeliveries(stack, acct.test_api_key, hook.id, (d) =>
        d.length === 4 && d.every((x) => x.status === 'succeeded') ? d : undefined,
      );
      expect(log[0].attempts[0]).toMatchObject({ attempt: 1, status_code: 200, error: null });
    } finally {
      await receiver.close();
    }
  });

  it('every event name reaches a subscriber; a narrower subscription gets only its events', async () => {
    const acct = await stack.newAccount();
    const all = await startReceiver();
    const narrow = await startReceiver();
    try {
      const hook = await configure(acct, all.url);
      const narrowHook = await configure(acct, narrow.url, ['payment.refunded', 'payment.test']);
      await pay(acct, ['cancel']);
      await pay(acct, ['deposit', 'dispute', 'resolve'], acct.test_api_key, { resolution: 'refund' });
      await pay(acct, ['deposit', 'approve', 'release']);
      await pay(acct, ['deposit', 'refund'], acct.test_api_key, { amount: 1 });
      // A payment in two milestones: one approved and released, the other disputed.
      const staged = await stack.http.post('/api/v1/payments', {
        key: acct.test_api_key,
        body: { ...validPayment(), milestones: [{ amount: 100 }, { amount: 25.5 }] },
      });
      expect(staged.status).toBe(201);
      const [first, second] = staged.body.milestones.map((m: { id: string }) => m.id);
      for (const path of ['deposit', `milestones/${first}/approve`, `milestones/${first}/release`, `milestones/${second}/dispute`]) {
        const res = await stack.http.post(`/api/v1/payments/${staged.body.id}/${path}`, { key: acct.test_api_key });
        expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
      }
      // A payment funded by bank transfer, short: partially funded (docs/bank.md).
      const byTransfer = await stack.http.post('/api/v1/payments', {
        key: acct.test_api_key,
        body: { ...validPayment(), funding: 'bank_transfer' },
      });
      expect(byTransfer.status, JSON.stringify(byTransfer.body)).toBe(201);
      const credit = await stack.http.post('/api/v1/test_helpers/bank_transfers', {
        key: acct.test_api_key,
        body: { reference: byTransfer.body.funding_reference, amount: 1, currency: 'USD' },
      });
      expect(credit.status, JSON.stringify(credit.body)).toBeLessThan(300);
      const test = await stack.http.post(`/api/v1/webhooks/${hook.id}/test`, { key: acct.test_api_key });
      expect(test.status).toBe(202);
      const names = await eventually(
        async () => {
          const seen = new Set(all.received.map((r) => r.body.event));
          return seen.size === PAYMENT_EVENTS.length ? [...seen].sort() : undefined;
        },
        20_000,
        'every event',
      );
      expect(names).toEqual([...PAYMENT_EVENTS].sort());
      const testEvent = all.received.find((r) => r.body.event === 'payment.test')!;
      expect(testEvent.body.data.status).toBe('test');
      expect(testEvent.headers['x-service-signature']).toBe(hmac(testEvent.raw, hook.secret));
      await eventually(async () => (narrow.received.length >= 1 ? true : undefined));
      expect(narrow.received.map((r) => r.body.event)).toEqual(['payment.refunded']);
      // Each event's deliveries are planned for every configuration at once, so by now (every event
      // arrived at `all`) the narrow configuration's share is complete: exactly one delivery.
      expect((await stack.db('webhook_deliveries').where({ webhook_id: narrowHook.id })).map((d) => d.event)).toEqual(['payment.refunded']);
    } finally {
      await all.close();
      await narrow.close();
    }
  });

  it('after two 500s the third attempt delivers, with the same delivery id and the same bytes', async () => {
    const acct = await stack.newAccount();
    const receiver = await startReceiver((n) => (n <= 2 ? 500 : 200));
    try {
      const hook = await configure(acct, receiver.url, ['payment.created']);
      await pay(acct, []);
      const log = await untilDeliveries(stack, acct.test_api_key, hook.id, (d) => (d[0]?.status === 'succeeded' ? d : undefined), {
        what: 'successful third attempt',
      });
      expect(receiver.received).toHaveLength(3);
      expect(new Set(receiver.received.map((r) => r.headers['x-service-delivery'])).size).toBe(1);
      expect(new Set(receiver.received.map((r) => r.raw.toString('hex'))).size).toBe(1);
      expect(log[0].attempts.map((a: any) => [a.attempt, a.status_code])).toEqual([
        [1, 500],
        [2, 500],
        [3, 200],
      ]);
      expect(log[0].attempts[0].error).toContain('500');
    } finally {
      await receiver.close();
    }
  });

  it('a receiver that never answers is attempted exactly five times and the log shows five failures', async () => {
    const acct = await stack.newAccount();
    const receiver = await startReceiver(() => 'hang');
    try {
      const hook = await configure(acct, receiver.url, ['payment.created']);
      await pay(acct, []);
      const log = await untilDeliveries(stack, acct.test_api_key, hook.id, (d) => (d[0]?.status === 'failed' ? d : undefined), {
        timeoutMs: 30_000,
        what: 'delivery to give up',
      });
      expect(log[0].attempts).toHaveLength(5);
      for (const a of log[0].attempts) {
        expect(a.status_code).toBeNull();
        expect(a.error).toMatch(/no answer within 1000 ms/);
      }
      expect(receiver.received).toHaveLength(5);
    } finally {
      await receiver.close();
    }
  });

  it('a refused connection is retried the same way', async () => {
    const acct = await stack.newAccount();
    const hook = await configure(acct, `http://127.0.0.1:${await freePort()}/nobody-home`, ['payment.created']);
    await pay(acct, []);
    const log = await untilDeliveries(stack, acct.test_api_key, hook.id, (d) => (d[0]?.status === 'failed' ? d : undefined), {
      timeoutMs: 30_000,
      what: 'delivery to give up',
    });
    expect(log[0].attempts.map((a: any) => a.error)).toEqual(Array(5).fill('ECONNREFUSED'));
  });

  it('a deleted configuration gets no further attempts and no new events', async () => {
    const acct = await stack.newAccount();
    const receiver = await startReceiver(() => 500);
    const witness = await startReceiver(); // a second, live configuration: proof the deposit's deliveries were planned
    try {
      const hook = await configure(acct, receiver.url);
      await configure(acct, witness.url, ['payment.deposited']);
      const id = await pay(acct, []);
      await eventually(async () => (receiver.received.length >= 1 ? true : undefined));
      expect((await stack.http.delete(`/api/v1/webhooks/${hook.id}`, { key: acct.test_api_key })).status).toBe(200);
      const seenAtDelete = receiver.received.length;
      // Transitions after deletion owe this configuration nothing.
      expect((await stack.http.post(`/api/v1/payments/${id}/deposit`, { key: acct.test_api_key })).status).toBe(200);
      await eventually(
        async () => (witness.received.some((r) => r.body.payment_id === id) ? true : undefined),
        20_000,
        'the witness delivery',
      );
      // Wait until Temporal has run every remaining retry of the first delivery (it ends as skipped).
      const row = await eventually(
        async () => {
          const d = await stack.db('webhook_deliveries').where({ webhook_id: hook.id }).first();
          return d && d.status !== 'pending' ? d : undefined;
        },
        20_000,
        'the pending delivery to settle',
      );
      expect(row.status).toBe('skipped');
      // At most the attempt already in flight when the configuration was deleted.
      expect(receiver.received.length).toBeLessThanOrEqual(seenAtDelete + 1);
      expect(receiver.received.every((r) => r.body.event === 'payment.created')).toBe(true);
      expect(await stack.db('webhook_deliveries').where({ webhook_id: hook.id }).count({ n: '*' })).toEqual([{ n: '1' }]);
    } finally {
      await receiver.close();
      await witness.close();
    }
  });

  it('a test-mode configuration never receives live events', async () => {
    const acct = await stack.newAccount();
    const receiver = await startReceiver();
    const liveWitness = await startReceiver(); // a live configuration, whose planned deliveries prove the live events were dispatched
    try {
      const testHook = await configure(acct, receiver.url);
      // Written directly: a live configuration cannot point at loopback through the API.
      await stack.db('webhooks').insert({
        id: `wh_livewitness${Date.now()}`,
        account_id: acct.account_id,
        livemode: true,
        url: liveWitness.url,
        secret: 'whsec_w',
        events: ['payment.deposited'],
        active: true,
      });
      const liveId = await pay(acct, ['deposit'], acct.live_api_key);
      // (Its delivery itself is refused at send time: plain http in live mode. Planning is what counts here.)
      await eventually(
        async () =>
          (await stack.db('webhook_deliveries').where({ payment_id: liveId, event: 'payment.deposited' })).length >= 1 ? true : undefined,
        20_000,
        'live deliveries to be planned',
      );
      const testId = await pay(acct, []);
      await eventually(async () => (receiver.received.some((r) => r.body.payment_id === testId) ? true : undefined));
      expect(await stack.db('webhook_deliveries').where({ webhook_id: testHook.id, payment_id: liveId })).toEqual([]);
      expect(receiver.received.map((r) => r.body.payment_id)).not.toContain(liveId);
      expect(receiver.received.every((r) => r.body.data.livemode === false)).toBe(true);
    } finally {
      await receiver.close();
      await liveWitness.close();
    }
  });

  it('a receiver that holds every request open never delays the payment', async () => {
    const acct = await stack.newAccount();
    const receiver = await startReceiver(() => 'hang');
    try {
      await configure(acct, receiver.url);
      const id = await pay(acct, ['deposit', 'approve', 'release']);
      // All four transitions answered while the receiver had not answered a single request.
      const p = await stack.http.get(`/api/v1/payments/${id}`, { key: acct.test_api_key });
      expect(p.body.status).toBe('released');
      await eventually(async () => (receiver.received.length >= 1 ? true : undefined));
    } finally {
      receiver.release();
      await receiver.close();
    }
  });
});

/** A raw HTTP exchange: the request's head and as much body as given, never ended; resolves to what came back once the server closes. */
function rawExchange(port: number, head: string, body: Buffer[]): Promise<string> {
  return new Promise((resolve) => {
    let answer = '';
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(head);
      for (const chunk of body) if (!socket.destroyed) socket.write(chunk);
    });
    socket.on('data', (c) => (answer += c.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(answer));
  });
}

describe('example receiver (npm run example:receiver)', () => {
  it('answers 401 on a bad or missing signature and 200 {"received":true} on a good one', async () => {
    const port = await freePort();
    const secret = 'whsec_example_secret';
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../examples/receiver.ts')], {
      cwd: path.resolve(__dirname, '..'),
      env: { ...process.env, PORT: String(port), WEBHOOK_SECRET: secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    let acted = '';
    child.stderr.on('data', (c) => (log += c));
    child.stdout.on('data', (c) => (acted += c));
    try {
      await eventually(
        async () =>
          fetch(`http://127.0.0.1:${port}/`, { method: 'POST' }).then(
            () => true,
            () => undefined,
          ),
        20_000,
        'receiver to listen',
      );
      const body = JSON.stringify({
        event: 'payment.test',
        payment_id: 'pay_x',
        timestamp: new Date().toISOString(),
        data: { status: 'test' },
      });
      const post = (headers: Record<string, string>, b = body) =>
        fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: b });
      // The body-only signature alone is refused, even a right one: it would verify a replay forever.
      expect((await post({ 'X-Service-Signature': hmac(Buffer.from(body), secret) })).status).toBe(401);
      expect((await post({ 'X-Service-Signature': hmac(Buffer.from(body), 'another-secret') })).status).toBe(401);
      expect((await post({})).status).toBe(401);
      // Standard Webhooks, within the tolerance; a stale timestamp and other bytes are refused.
      const standard = (at: number, id = 'dlv_x') => {
        const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
        const ts = Math.floor(at / 1000);
        const mac = createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64');
        return {
          'webhook-id': id,
          'webhook-timestamp': String(ts),
          'webhook-signature': `v1,${mac}`,
          'X-Service-Event': 'payment.test',
        };
      };
      const good = await post(standard(Date.now()));
      expect(good.status).toBe(200);
      expect(await good.json()).toEqual({ received: true });
      expect((await post(standard(Date.now()), body.replace(':', ': '))).status).toBe(401);
      expect((await post(standard(Date.now() - 10 * 60_000))).status).toBe(401);
      // One line per request, refusals included, with the event, the delivery and the verdict.
      await eventually(async () => (log.includes('outside the tolerance') ? true : undefined), 5_000, 'the refusal logged');
      expect(log).toMatch(/payment\.test dlv_x accepted \(standard-webhooks\)/);
      expect(log).toMatch(/refused: webhook-signature missing/);

      // Deduplicated on webhook-id: a retry of dlv_x is answered but not acted on again; another
      // delivery with the same payment_id and event (as a payment's milestones send) is acted on.
      expect((await post(standard(Date.now()))).status).toBe(200);
      expect((await post(standard(Date.now(), 'dlv_y'))).status).toBe(200);
      await eventually(async () => (log.includes('dlv_y accepted') ? true : undefined), 5_000, 'dlv_y logged');
      await new Promise((r) => setTimeout(r, 200));
      expect(acted.trim().split('\n')).toHaveLength(2);
      expect(log).toMatch(/dlv_x accepted \(standard-webhooks\), already handled/);

      // Over 1 MB: 413 before any verifying, reading no more than 1 MB. A declared length is refused
      // unread; a chunked body is refused once past the limit, without waiting for its end.
      const declared = await rawExchange(port, `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`, []);
      expect(declared).toMatch(/^HTTP\/1\.1 413 /);
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const chunked = (n: number) =>
        Array.from({ length: n }, () => Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
      const streamed = await rawExchange(port, 'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n', chunked(17));
      expect(streamed).toMatch(/^HTTP\/1\.1 413 /);
      expect(log).toMatch(/refused: body over 1048576 bytes/);
      // A body of exactly 1 MB is still read and verified (here: unsigned, 401).
      const atLimit = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: Buffer.alloc(1024 * 1024, 'a') });
      expect(atLimit.status).toBe(401);
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe('a transition in the same instant as create', () => {
  it('payment.created still carries the created snapshot, and each event arrives once', async () => {
    const acct = await stack.newAccount();
    const receiver = await startReceiver();
    try {
      await configure(acct, receiver.url);
      // signalWithStart puts the deposit into the workflow's very first activation, racing the
      // projection of the creation: the sharpest form of "deposit right after create".
      const id = `pay_${ulid()}`;
      const payment = samplePaymentDetails(acct.account_id, { id });
      await stack.client.workflow.signalWithStart(paymentWorkflow, {
        workflowId: id,
        taskQueue: stack.taskQueue,
        args: [{ payment, actor: 'test' }],
        signal: transitionSignal,
        signalArgs: [{ action: 'deposit', actor: 'test' }],
      });
      await eventually(async () => (receiver.received.length >= 2 ? true : undefined), 20_000, 'two deliveries');
      expect(receiver.received.map((r) => [r.body.event, r.body.data.status]).sort()).toEqual([
        ['payment.created', 'pending_deposit'],
        ['payment.deposited', 'in_custody'],
      ]);
    } finally {
      await receiver.close();
    }
  });
});

describe('delivery-time URL check (live mode)', () => {
  it('refuses to send to a host that became private after configuration, once, without retries', async () => {
    const acct = await stack.newAccount();
    // Stands for a public name whose DNS now points inside: written past the configure-time check.
    const [row] = await stack
      .db('webhooks')
      .insert({
        id: `wh_rebound${Date.now()}`,
        account_id: acct.account_id,
        livemode: true,
        url: 'https://127.0.0.1:9/hook',
        secret: 'whsec_x',
        events: ['payment.created'],
        active: true,
      })
      .returning('*');
    await pay(acct, [], acct.live_api_key);
    const log = await eventually(
      async () => {
        const d = (await stack.http.get(`/api/v1/webhooks/${row.id}/deliveries`, { key: acct.live_api_key })).body.data;
        return d[0]?.status === 'failed' ? d : undefined;
      },
      20_000,
      'refused delivery',
    );
    expect(log[0].attempts).toHaveLength(1);
    expect(log[0].attempts[0].error).toMatch(/^refused: url host is a private, loopback, link-local or metadata address/);
  });
});
