/**
 * Disputes as a process on the real stack (docs/concepts.md, "Disputes"): the record on the payment
 * and its milestones, the respondent's deadline deciding by default (moved by a test clock), an
 * offer accepted settling as a split does, a withdrawal returning the money to where it was, the
 * platform's decision, a milestone's dispute while the others move on, every action out of turn a
 * 409 naming the dispute's status, and an accept racing a resolve (exactly one wins).
 */
import { describe, expect, it } from 'vitest';
import { expectConsistent, expectLedgerOf, paymentsOf, twoMilestones } from './helpers/milestones';
import { useAccount, useStack, validPayment } from './helpers/stack';
import { NextDeadlineKey } from '../src/platform/searchAttributes.rules';

const DAY = 24 * 3600;
const stack = useStack();
const acct = useAccount(stack);

function api() {
  const a = paymentsOf(stack, acct.test_api_key);
  const post = (path: string, body?: unknown) => stack.http.post(`/api/v1${path}`, { key: acct.test_api_key, body });
  return {
    ...a,
    post,
    /** A dispute action on the payment (`ms` absent) or a milestone; the raw answer. */
    dispute: (id: string, path: string, body: unknown, ms?: string) =>
      post(`/payments/${id}${ms ? `/milestones/${ms}` : ''}/dispute${path}`, body),
    async okDispute(id: string, path: string, body: unknown, ms?: string) {
      const res = await post(`/payments/${id}${ms ? `/milestones/${ms}` : ''}/dispute${path}`, body);
      expect(res.status, `dispute${path}: ${JSON.stringify(res.body)}`).toBe(200);
      return res.body;
    },
    advance: (id: string, seconds: number) => post(`/test_helpers/payments/${id}/advance`, { seconds }),
    history: async (id: string) => (await a.get(`/payments/${id}/history`)).data as any[],
  };
}

/** A deposited payment of 125.50 USD with a fee of 6.27. */
async function deposited(over: Record<string, unknown> = {}) {
  const a = api();
  const p = await a.create(validPayment({ platform_fee: 6.27, ...over }));
  await a.ok(p.id, 'deposit');
  return p;
}

describe('the dispute record', () => {
  it('opened by the payer: the recipient responds by respond_by; shown on the payment and its milestone, also once ended', async () => {
    const a = api();
    const p = await deposited();
    const opened = await a.ok(p.id, 'dispute', { opened_by: 'payer', respond_within_seconds: 3 * DAY, reason: 'Never arrived' });
    expect(opened.status).toBe('disputed');
    expect(opened.dispute).toMatchObject({
      status: 'awaiting_response',
      opened_by: 'payer',
      respondent: 'recipient',
      reason: 'Never arrived',
      amount: 125.5,
      evidence: [],
      offers: [],
      resolution: null,
    });
    expect(opened.dispute.id).toMatch(/^dp_/);
    // When it was opened: the step's own time, in ISO 8601.
    expect(opened.dispute.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(opened.dispute.created_at).toBe(opened.updated_at);
    const due = Date.parse(opened.dispute.respond_by) - Date.parse(opened.updated_at);
    expect(Math.abs(due - 3 * DAY * 1000)).toBeLessThan(60_000);
    expect(opened.milestones[0].dispute).toEqual(opened.dispute);
    // The read model answers the same, texts included.
    expect((await a.get(`/payments/${p.id}`)).dispute).toEqual(opened.dispute);
  });

  it('opened by the platform (the default): no respondent, no respond_by, no default outcome; resolve is the platform decision', async () => {
    const a = api();
    const p = await deposited();
    const opened = await a.ok(p.id, 'dispute');
    expect(opened.dispute).toMatchObject({ opened_by: 'platform', respondent: null, respond_by: null, status: 'awaiting_response' });
    const later = await a.advance(p.id, 30 * DAY);
    expect([later.status, later.body.status]).toEqual([200, 'disputed']);
    const resolved = await a.ok(p.id, 'resolve', { resolution: 'split', refund_amount: 25.5 });
    expect(resolved).toMatchObject({ status: 'released', amount_refunded: 25.5, amount_released: 100, fee_collected: 4.99 });
    expect(resolved.dispute).toMatchObject({
      status: 'resolved',
      resolution: { refund_amount: 25.5, release_amount: 100, decided_by: 'platform' },
    });
    await expectLedgerOf(stack, a.key, resolved);
  });
});

describe('the respondent silent until respond_by: decided for the party that opened it, by the named durable timer', () => {
  it('payer opened: everything refunded by default when the test clock passes respond_by', async () => {
    const a = api();
    const p = await deposited();
    const opened = await a.ok(p.id, 'dispute', { opened_by: 'payer', respond_within_seconds: 2 * DAY, reason: 'Never arrived' });
    // The payment's NextDeadline is the respondent's deadline; its timer is named in the Temporal UI.
    const handle = stack.client.workflow.getHandle(p.id);
    expect((await handle.describe()).typedSearchAttributes.get(NextDeadlineKey)?.toISOString()).toBe(opened.dispute.respond_by);
    const events = (await stack.client.workflow.getHandle(p.id).fetchHistory()).events ?? [];
    const summaries = events
      .filter((e) => e.timerStartedEventAttributes)
      .map((e) => Buffer.from(e.userMetadata?.summary?.data ?? new Uint8Array()).toString());
    expect(summaries.some((s) => s.includes('dispute respond_by dp_'))).toBe(true);
    const early = await a.advance(p.id, DAY);
    expect(early.body.status).toBe('disputed');
    const due = await a.advance(p.id, DAY);
    expect(due.body).toMatchObject({ status: 'refunded', amount_refunded: 125.5, amount_released: 0 });
    expect(due.body.dispute.reason).toBe('Never arrived');
    expect(due.body.dispute).toMatchObject({
      status: 'resolved',
      resolution: { refund_amount: 125.5, release_amount: 0, decided_by: 'default' },
    });
    expect((await a.history(p.id)).at(-1)).toMatchObject({ action: 'dispute_default', to: 'refunded', actor: 'system' });
  });

  it('recipient opened: everything released by default (fee in full)', async () => {
    const a = api();
    const p = await deposited();
    await a.ok(p.id, 'approve');
    await a.ok(p.id, 'dispute', { opened_by: 'recipient', respond_within_seconds: DAY });
    const due = await a.advance(p.id, DAY);
    expect(due.body).toMatchObject({ status: 'released', amount_released: 125.5, fee_collected: 6.27 });
    expect(due.body.dispute.resolution).toMatchObject({ decided_by: 'default', release_amount: 125.5, refund_amount: 0 });
  });

  it('an offer nobody answered expires when the deadline decides the dispute; the dispute keeps when it was opened', async () => {
    const a = api();
    const p = await deposited();
    const opened = await a.ok(p.id, 'dispute', { opened_by: 'payer', respond_within_seconds: DAY });
    // The opener's own offer: the respondent never answers it, nor gives evidence.
    const offered = await a.okDispute(p.id, '/offers', { proposed_by: 'payer', refund_amount: 100 });
    expect(offered.dispute.offers.map((o: any) => o.status)).toEqual(['proposed']);
    const due = await a.advance(p.id, DAY);
    expect(due.body).toMatchObject({ status: 'refunded', dispute: { status: 'resolved', resolution: { decided_by: 'default' } } });
    expect(due.body.dispute.offers.map((o: any) => [o.refund_amount, o.status])).toEqual([[100, 'expired']]);
    expect(due.body.dispute.created_at).toBe(opened.dispute.created_at);
    expect((await a.get(`/payments/${p.id}`)).dispute).toEqual(due.body.dispute);
    const late = await a.dispute(p.id, `/offers/${offered.dispute.offers[0].id}/accept`, { party: 'recipient' });
    expect([late.status, late.body.error.code, late.body.error.details.dispute_status]).toEqual([409, 'dispute_out_of_turn', 'resolved']);
  });

  it("the respondent's first evidence moves it under review: the deadline no longer decides it", async () => {
    const a = api();
    const p = await deposited();
    await a.ok(p.id, 'dispute', { opened_by: 'payer', respond_within_seconds: DAY });
    const byOpener = await a.okDispute(p.id, '/evidence', { party: 'payer', text: 'Photo of the empty box' });
    expect(byOpener.dispute.status).toBe('awaiting_response');
    const answered = await a.okDispute(p.id, '/evidence', { party: 'recipient', text: 'Tracking: delivered 24 Nov' });
    expect(answered.dispute.status).toBe('under_review');
    expect(answered.dispute.evidence.map((e: any) => [e.party, e.text])).toEqual([
      ['payer', 'Photo of the empty box'],
      ['recipient', 'Tracking: delivered 24 Nov'],
    ]);
    expect(answered.dispute.evidence[0].id).toMatch(/^ev_/);
    const later = await a.advance(p.id, 3 * DAY);
    expect(later.body.status).toBe('disputed');
  });
});

describe('offers', () => {
  it('a newer offer supersedes the same party’s; the other party declines one, accepts the next: settled as a split, fees pro rata', async () => {
    const a = api();
    const p = await deposited();
    await a.ok(p.id, 'dispute', { opened_by: 'payer' });
    const first = await a.okDispute(p.id, '/offers', { proposed_by: 'recipient', refund_amount: 10, note: 'Shipping back' });
    const second = await a.okDispute(p.id, '/offers', { proposed_by: 'recipient', refund_amount: 20 });
    expect(second.dispute.offers.map((o: any) => [o.refund_amount, o.release_amount, o.status, o.note])).toEqual([
      [10, 115.5, 'superseded', 'Shipping back'],
      [20, 105.5, 'proposed', null],
    ]);
    const counter = await a.okDispute(p.id, '/offers', { proposed_by: 'payer', refund_amount: 60 });
    const payerOffer = counter.dispute.offers.at(-1).id;
    const declined = await a.okDispute(p.id, `/offers/${payerOffer}/decline`, { party: 'recipient' });
    expect(declined.dispute.offers.at(-1).status).toBe('declined');
    expect(declined.status).toBe('disputed');
    const offerId = second.dispute.offers[1].id;
    expect(offerId).toMatch(/^of_/);
    const accepted = await a.okDispute(p.id, `/offers/${offerId}/accept`, { party: 'payer' });
    // floor(6.27 × 105.50 / 125.50) = 5.27
    expect(accepted).toMatchObject({ status: 'released', amount_refunded: 20, amount_released: 105.5, fee_collected: 5.27 });
    expect(accepted.dispute).toMatchObject({
      status: 'resolved',
      resolution: { refund_amount: 20, release_amount: 105.5, decided_by: 'agreement' },
    });
    expect(accepted.dispute.offers.find((o: any) => o.id === offerId).status).toBe('accepted');
    expect(first.dispute.offers[0].id).not.toBe(offerId);
    expectConsistent(accepted);
    await expectLedgerOf(stack, a.key, accepted);
    const types = (await a.get(`/events?payment_id=${p.id}&limit=100`)).data.map((e: any) => e.type);
    expect(types.filter((t: string) => t === 'payment.dispute_updated').length).toBeGreaterThanOrEqual(5);
    expect(types).toContain('payment.released');
  });

  it('an offer of 0 releases everything, one of the whole amount refunds everything', async () => {
    const a = api();
    for (const [refund, status] of [
      [0, 'released'],
      [125.5, 'refunded'],
    ] as const) {
      const p = await deposited();
      await a.ok(p.id, 'dispute', { opened_by: 'recipient' });
      const offered = await a.okDispute(p.id, '/offers', { proposed_by: 'payer', refund_amount: refund });
      const done = await a.okDispute(p.id, `/offers/${offered.dispute.offers[0].id}/accept`, { party: 'recipient' });
      expect(done.status).toBe(status);
      expect(done.amount_refunded).toBe(refund);
    }
  });
});

describe('withdrawal', () => {
  it('by the party that opened it: the money returns to the status it had (pending_release, in_custody)', async () => {
    const a = api();
    const approved = await deposited();
    await a.ok(approved.id, 'approve');
    await a.ok(approved.id, 'dispute', { opened_by: 'payer' });
    const back = await a.okDispute(approved.id, '/withdraw', { party: 'payer' });
    expect(back).toMatchObject({ status: 'pending_release', amount_held: 125.5 });
    expect(back.dispute).toMatchObject({
      status: 'withdrawn',
      resolution: { decided_by: 'withdrawal', refund_amount: 0, release_amount: 0 },
    });
    expect((await a.history(approved.id)).at(-1)).toMatchObject({ action: 'dispute_withdraw', from: 'disputed', to: 'pending_release' });
    await a.ok(approved.id, 'release');

    const held = await deposited();
    await a.ok(held.id, 'dispute', { opened_by: 'recipient' });
    expect((await a.okDispute(held.id, '/withdraw', { party: 'recipient' })).status).toBe('in_custody');
  });
});

describe('a milestone’s dispute', () => {
  it('runs on while the other milestones move on; its default decides that milestone only', async () => {
    const a = api();
    const p = await a.create(twoMilestones());
    const { first, second } = a.ids(p);
    await a.ok(p.id, 'deposit');
    const opened = await a.okOn(p.id, first, 'dispute', { opened_by: 'payer', respond_within_seconds: DAY });
    expect(opened.status).toBe('disputed');
    expect(opened.milestones[0].dispute).toMatchObject({ opened_by: 'payer', amount: 60, status: 'awaiting_response' });
    expect(opened.milestones[1].dispute).toBeNull();
    await a.okOn(p.id, second, 'approve');
    const releasedSecond = await a.okOn(p.id, second, 'release');
    expect(releasedSecond.milestones[1].status).toBe('released');
    const ev = await a.okDispute(p.id, '/evidence', { party: 'payer', text: 'Design not delivered' }, first);
    expect(ev.milestones[0].dispute.evidence).toHaveLength(1);
    const due = await a.advance(p.id, DAY);
    expect(due.body.milestones.map((m: any) => m.status)).toEqual(['refunded', 'released']);
    expect(due.body.status).toBe('released');
    expect(due.body.milestones[0].dispute.resolution).toMatchObject({ decided_by: 'default', refund_amount: 60 });
    expectConsistent(due.body);
    await expectLedgerOf(stack, a.key, due.body);
  });
});

describe('out of turn: 409 naming the dispute’s status, nothing changed', () => {
  it('refusals while open, and every action once it ended', async () => {
    const a = api();
    const none = await deposited();
    const noDispute = await a.dispute(none.id, '/evidence', { party: 'payer', text: 'x' });
    expect([noDispute.status, noDispute.body.error.code, noDispute.body.error.details.status]).toEqual([
      409,
      'invalid_transition',
      'in_custody',
    ]);

    const p = await deposited();
    await a.ok(p.id, 'dispute', { opened_by: 'payer' });
    const offered = await a.okDispute(p.id, '/offers', { proposed_by: 'recipient', refund_amount: 20 });
    const offer = offered.dispute.offers[0].id;
    const before = await a.get(`/payments/${p.id}`);
    const refusals = [
      await a.dispute(p.id, `/offers/${offer}/accept`, { party: 'recipient' }),
      await a.dispute(p.id, `/offers/${offer}/decline`, { party: 'platform' }),
      await a.dispute(p.id, '/withdraw', { party: 'recipient' }),
      await a.dispute(p.id, '/offers/' + offer + '/accept', { party: 'platform' }),
    ];
    for (const res of refusals) {
      expect([res.status, res.body.error.code, res.body.error.details.dispute_status], JSON.stringify(res.body)).toEqual([
        409,
        'dispute_out_of_turn',
        'awaiting_response',
      ]);
    }
    // A party the action is not for is told who may take it, not the dispute's status.
    expect(refusals.map((res) => res.body.error.message)).toEqual([
      `only the payer, to whom offer ${offer} was made, may accept it: the recipient made it`,
      `only the payer, to whom offer ${offer} was made, may decline it: the recipient made it`,
      `only the payer, who opened dispute ${offered.dispute.id}, may withdraw it`,
      `only the payer, to whom offer ${offer} was made, may accept it: the recipient made it`,
    ]);
    const unknown = await a.dispute(p.id, '/offers/of_01ARZ3NDEKTSV4RRFFQ69G5FAV/accept', { party: 'payer' });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
    const tooMuch = await a.dispute(p.id, '/offers', { proposed_by: 'payer', refund_amount: 200 });
    expect([tooMuch.status, tooMuch.body.error.code]).toEqual([400, 'invalid_request']);
    for (const party of ['judge', 'platform']) {
      const bad = await a.dispute(p.id, '/evidence', { party, text: 'x' });
      expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_request']);
    }
    const long = await a.dispute(p.id, '/evidence', { party: 'payer', text: 'x'.repeat(20_001) });
    expect([long.status, long.body.error.code]).toEqual([400, 'invalid_request']);
    expect(await a.get(`/payments/${p.id}`)).toEqual(before);

    await a.okDispute(p.id, '/withdraw', { party: 'payer' });
    for (const [path, body] of [
      ['/evidence', { party: 'payer', text: 'late' }],
      ['/offers', { proposed_by: 'payer', refund_amount: 1 }],
      [`/offers/${offer}/accept`, { party: 'payer' }],
      ['/withdraw', { party: 'payer' }],
    ] as const) {
      const res = await a.dispute(p.id, path, body);
      expect([res.status, res.body.error?.code, res.body.error?.details?.dispute_status], path).toEqual([
        409,
        'dispute_out_of_turn',
        'withdrawn',
      ]);
    }
  });

  it('one’s own offer, under review: refused naming who may answer it, not the status', async () => {
    const a = api();
    const p = await deposited();
    await a.ok(p.id, 'dispute', { opened_by: 'payer' });
    await a.okDispute(p.id, '/evidence', { party: 'recipient', text: 'Delivered' });
    const offered = await a.okDispute(p.id, '/offers', { proposed_by: 'payer', refund_amount: 50 });
    expect(offered.dispute.status).toBe('under_review');
    const offer = offered.dispute.offers[0].id;
    const own = await a.dispute(p.id, `/offers/${offer}/accept`, { party: 'payer' });
    expect([own.status, own.body.error.code, own.body.error.details.dispute_status]).toEqual([409, 'dispute_out_of_turn', 'under_review']);
    expect(own.body.error.message).toBe(`only the recipient, to whom offer ${offer} was made, may accept it: the payer made it`);
    expect((await a.okDispute(p.id, `/offers/${offer}/accept`, { party: 'recipient' })).status).toBe('released');
  });

  it('at most 20 evidence items', async () => {
    const a = api();
    const p = await deposited();
    await a.ok(p.id, 'dispute', { opened_by: 'payer' });
    for (let i = 0; i < 20; i++) await a.okDispute(p.id, '/evidence', { party: i % 2 ? 'payer' : 'recipient', text: `item ${i}` });
    const more = await a.dispute(p.id, '/evidence', { party: 'payer', text: 'one more' });
    expect([more.status, more.body.error.code, more.body.error.details.dispute_status]).toEqual([
      409,
      'dispute_out_of_turn',
      'under_review',
    ]);
  });
});

describe('an accepted offer and the platform’s resolve at the same instant', () => {
  it('exactly one wins; the other is a 409 and the money moved once', async () => {
    const a = api();
    for (let round = 0; round < 3; round++) {
      const p = await deposited();
      await a.ok(p.id, 'dispute', { opened_by: 'payer' });
      const offered = await a.okDispute(p.id, '/offers', { proposed_by: 'recipient', refund_amount: 20 });
      const [accept, resolve] = await Promise.all([
        a.dispute(p.id, `/offers/${offered.dispute.offers[0].id}/accept`, { party: 'payer' }),
        a.act(p.id, 'resolve', { resolution: 'refund' }),
      ]);
      const statuses = [accept.status, resolve.status].sort();
      expect(statuses).toEqual([200, 409]);
      const final = await a.get(`/payments/${p.id}`);
      const winner = accept.status === 200 ? 'agreement' : 'platform';
      expect(final.dispute.resolution.decided_by).toBe(winner);
      expect(final.status).toBe(winner === 'agreement' ? 'released' : 'refunded');
      const entries = await expectLedgerOf(stack, a.key, final);
      expect(entries).toHaveLength(2);
    }
  });
});

describe("a dispute's texts are personal data", () => {
  it('never in Temporal; in the history and the read model until redact erases them; the trail holds their keyed hashes', async () => {
    const a = api();
    const p = await deposited();
    const secret = (what: string) => `${what} ${Math.random().toString(36).slice(2)}`;
    const [reason, evidence, note] = [secret('reason'), secret('evidence'), secret('note')];
    await a.ok(p.id, 'dispute', { opened_by: 'payer', reason });
    await a.okDispute(p.id, '/evidence', { party: 'recipient', text: evidence });
    const offered = await a.okDispute(p.id, '/offers', { proposed_by: 'recipient', refund_amount: 5, note });
    expect(offered.dispute).toMatchObject({ reason, evidence: [{ text: evidence }], offers: [{ note }] });
    const done = await a.okDispute(p.id, `/offers/${offered.dispute.offers[0].id}/accept`, { party: 'payer' });
    expect(done.status).toBe('released');
    const history = JSON.stringify((await stack.client.workflow.getHandle(p.id).fetchHistory()).events);
    for (const text of [reason, evidence, note]) expect(history).not.toContain(text);
    const reasons = (await a.history(p.id)).map((e) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining([reason, evidence, note]));
    const leaves = JSON.stringify(await stack.db('audit_leaves').where({ payment_id: p.id }));
    for (const text of [reason, evidence, note]) expect(leaves).not.toContain(text);

    const redacted = await a.post(`/payments/${p.id}/redact`);
    expect(redacted.status).toBe(200);
    for (const view of [redacted.body, await a.get(`/payments/${p.id}`)]) {
      expect(view.dispute).toMatchObject({ reason: '[redacted]', evidence: [{ text: '[redacted]' }], offers: [{ note: '[redacted]' }] });
    }
    const stored = JSON.stringify([
      await stack.db('payments').where({ id: p.id }),
      await stack.db('payment_events').where({ payment_id: p.id }),
      await stack.db('events').where({ payment_id: p.id }),
      await stack.db('payment_reasons').where({ payment_id: p.id }),
    ]);
    for (const text of [reason, evidence, note]) expect(stored).not.toContain(text);
  });
});

describe('a payment never disputed', () => {
  it('costs what it did: no disputes marker, no timer but its own, one publication per step; its dispute is null', async () => {
    const a = api();
    const p = await deposited({ auto_release_after_seconds: 3600 });
    await a.ok(p.id, 'approve');
    const done = await a.ok(p.id, 'release');
    expect([done.dispute, done.milestones[0].dispute]).toEqual([null, null]);
    const handle = stack.client.workflow.getHandle(p.id);
    await handle.result();
    const events = (await handle.fetchHistory()).events ?? [];
    const markers = events.flatMap((e) => {
      const data = e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data;
      return data ? [(JSON.parse(Buffer.from(data).toString('utf8')) as { id: string }).id] : [];
    });
    // The delivery patches were retired with their histories before 1.0 (docs/architecture.md): none is left to mark.
    expect(markers).toEqual([]);
    // The creation is published by a local activity in the run's first task (docs/architecture.md), each later step by an activity.
    const activities = events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(activities).toEqual(['publishTransition', 'publishTransition', 'publishTransition']);
    expect(events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toHaveLength(1);
    const timers = events.flatMap((e) =>
      e.timerStartedEventAttributes ? [Buffer.from(e.userMetadata?.summary?.data ?? new Uint8Array()).toString('utf8')] : [],
    );
    // The deposit deadline's timer starts only when the run waits in `created`: a deposit that reaches
    // the run with its first task leaves none. Either way, no timer but the payment's own.
    expect(timers).toContain('"auto-release"');
    expect(timers.filter((t) => t !== '"deposit deadline"' && t !== '"auto-release"')).toEqual([]);
  });
});
