/**
 * Milestone fixtures the stack test files share (test/milestones*.test.ts): the worked example of
 * docs/money.md as a create body, payment and milestone actions over HTTP, and the payment's
 * amounts and its milestones' in one comparable shape.
 */
import { expect } from 'vitest';
import type { Stack } from './stack';

/** The worked example (docs/money.md, "Deals paid in stages"): 1000.00 USD, fee 29.99, three milestones. */
export const workedExample = (over: Record<string, unknown> = {}) => ({
  amount: 1000,
  currency: 'USD',
  platform_fee: 29.99,
  payer_email: 'payer@example.com',
  recipient_email: 'studio@example.com',
  description: 'Website, paid in three stages',
  milestones: [
    { reference: 'design', description: 'Mock-ups and style guide', amount: 200 },
    { reference: 'build', description: 'The site itself', amount: 500 },
    { reference: 'launch', description: 'Go-live and hand-over', amount: 300, recipient_email: 'ops@example.com' },
  ],
  ...over,
});

/** Two milestones of 60.00 and 40.00 USD: the smallest payment with milestones that tells them apart. */
export const twoMilestones = (over: Record<string, unknown> = {}) => ({
  amount: 100,
  currency: 'USD',
  platform_fee: 10,
  payer_email: 'payer@example.com',
  recipient_email: 'recipient@example.com',
  milestones: [
    { reference: 'first', amount: 60 },
    { reference: 'second', amount: 40 },
  ],
  ...over,
});

/** The payment's status and amounts, and each milestone's, by reference (or id when it has none). */
export function amountsOf(p: any) {
  return {
    status: p.status,
    held: p.amount_held,
    released: p.amount_released,
    refunded: p.amount_refunded,
    fee: p.fee_collected,
    milestones: Object.fromEntries(
      p.milestones.map((m: any) => [m.reference ?? m.id, [m.status, m.amount_held, m.amount_released, m.amount_refunded, m.fee_collected]]),
    ),
  };
}

/** Every milestone's held + released + refunded is its amount, and the payment's amounts are their sums (minor units, no float sums). */
export function expectConsistent(p: any) {
  const cents = (major: number) => Math.round(major * 100);
  const sum = (field: string) => p.milestones.reduce((s: number, m: any) => s + cents(m[field]), 0);
  for (const m of p.milestones) {
    expect(cents(m.amount_held) + cents(m.amount_released) + cents(m.amount_refunded), `${m.id}: held + released + refunded`).toBe(
      cents(m.amount),
    );
  }
  expect([sum('amount_held'), sum('amount_released'), sum('amount_refunded'), sum('fee_collected')]).toEqual(
    [p.amount_held, p.amount_released, p.amount_refunded, p.fee_collected].map(cents),
  );
}

/**
 * The payment's ledger (GET /payments/:id/ledger) agrees with each milestone's amounts: its entries'
 * custody postings are what it holds, payer_refunds what it refunded, recipient_payable +
 * platform_fees what it released and platform_fees its fee; every entry balances. Returns the entries.
 */
export async function expectLedgerOf(stack: Stack, key: string, p: any): Promise<any[]> {
  const cents = (major: number) => Math.round(major * 100);
  const entries = (await stack.http.get(`/api/v1/payments/${p.id}/ledger`, { key })).body.data as any[];
  for (const e of entries)
    expect(
      e.postings.reduce((s: number, x: any) => s + cents(x.amount), 0),
      `${e.id} balances`,
    ).toBe(0);
  for (const m of p.milestones) {
    const sums: Record<string, number> = {};
    for (const e of entries.filter((x) => x.milestone_id === m.id))
      for (const x of e.postings) sums[x.account] = (sums[x.account] ?? 0) + cents(x.amount);
    const of = (a: string) => sums[a] ?? 0;
    expect(
      [of('custody'), of('payer_refunds'), of('recipient_payable') + of('platform_fees'), of('platform_fees')],
      `${m.id}: the ledger's held, refunded, released, fee`,
    ).toEqual([m.amount_held, m.amount_refunded, m.amount_released, m.fee_collected].map(cents));
  }
  expect(entries.every((e) => p.milestones.some((m: any) => m.id === e.milestone_id))).toBe(true);
  return entries;
}

/** Payment and milestone actions of one account, over HTTP. */
export function paymentsOf(stack: Stack, key: string) {
  const post = (path: string, body?: unknown) => stack.http.post(`/api/v1${path}`, { key, body });
  const api = {
    key,
    get: async (path: string) => (await stack.http.get(`/api/v1${path}`, { key })).body,
    async create(body: Record<string, unknown>) {
      const res = await post('/payments', body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    },
    /** A payment action's answer, whatever its status. */
    act: (id: string, action: string, body?: unknown) => post(`/payments/${id}/${action}`, body),
    /** A milestone action's answer, whatever its status. */
    actOn: (id: string, ms: string, action: string, body?: unknown) => post(`/payments/${id}/milestones/${ms}/${action}`, body),
    /** A payment action that must succeed: the payment after it. */
    async ok(id: string, action: string, body?: unknown) {
      const res = await api.act(id, action, body);
      expect(res.status, `${action}: ${JSON.stringify(res.body)}`).toBe(200);
      return res.body;
    },
    /** A milestone action that must succeed: the payment after it. */
    async okOn(id: string, ms: string, action: string, body?: unknown) {
      const res = await api.actOn(id, ms, action, body);
      expect(res.status, `${ms} ${action}: ${JSON.stringify(res.body)}`).toBe(200);
      return res.body;
    },
    /** The milestone ids of a payment, by reference. */
    ids: (p: any): Record<string, string> => Object.fromEntries(p.milestones.map((m: any) => [m.reference, m.id])),
    /** How many payments the account has in test mode (up to 100: the tests that count make a few). */
    async count() {
      const page = (await stack.http.get('/api/v1/payments?limit=100', { key })).body;
      expect(page.has_more).toBe(false);
      return page.data.length as number;
    },
  };
  return api;
}
