/**
 * docs/concepts.md draws the state machine the transition table defines, and states the rule
 * PAYMENT_STATUS_RULES defines for a payment's status from its milestones', and nothing else.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONCEPTS, withDiagram, withStatusRules } from '../../scripts/docs-state-machine';
import { TRANSITIONS } from '../../src/payments/payment.rules';
import { PAYMENT_STATUS_RULES } from '../../src/payments/milestones.rules';

describe('docs/concepts.md', () => {
  const text = fs.readFileSync(CONCEPTS, 'utf8');
  it('holds the diagram a fresh drawing from the transition table gives (npm run docs:state-machine)', () => {
    expect(text).toBe(withDiagram(text));
  });
  it('draws every transition of the table', () => {
    for (const t of TRANSITIONS) for (const from of t.from) expect(text).toContain(`${from} --> ${t.to}`);
  });
  it('holds the payment status rules a fresh rendering of PAYMENT_STATUS_RULES gives (npm run docs:state-machine)', () => {
    expect(text).toBe(withStatusRules(text));
  });
  it('lists every payment status rule once, in the order they are tried', () => {
    const rows = text.split('\n').filter((l) => /^\| `\w+` +\| /.test(l));
    const rules = rows.filter((l) => PAYMENT_STATUS_RULES.some((r) => l.includes(r.when)));
    expect(rules.map((l) => /`(\w+)`/.exec(l)?.[1])).toEqual(PAYMENT_STATUS_RULES.map((r) => r.status));
  });
});
