/**
 * The trigger that counts open payments (migrations/20261127010000_limits.js) names the terminal
 * statuses in SQL: they must be the domain's, or a payment would count as open for good.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TERMINAL_STATUSES } from '../../src/payments/paymentTypes.rules';

describe('the open-payment count', () => {
  it("treats as terminal exactly the domain's TERMINAL_STATUSES, everywhere the migration names them", () => {
    const sql = readFileSync(path.resolve(__dirname, '../../migrations/20261127010000_limits.js'), 'utf8');
    const lists = [...sql.matchAll(/not in \(([^)]*)\)/g)].map((m) => m[1].split(',').map((s) => s.trim().replace(/'/g, '')));
    expect(lists.length).toBeGreaterThanOrEqual(3);
    for (const list of lists) expect([...list].sort()).toEqual([...TERMINAL_STATUSES].sort());
  });
});
