/** Every field a create takes is in docs/api.md's table, and the table names no other. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CreatePaymentFields } from '../../src/platform/http/schemas';

describe('docs/api.md: the create fields table', () => {
  it('lists exactly the fields POST /api/v1/payments accepts, with whether each is required', () => {
    const page = fs.readFileSync(path.join(__dirname, '../..', 'docs/api.md'), 'utf8');
    const start = page.indexOf('| field ');
    const rows = page
      .slice(start)
      .split('\n')
      .slice(2)
      .filter((line, i, all) => line.startsWith('|') && all.slice(0, i).every((l) => l.startsWith('|')));
    // A row may name several fields (`payer_email`, `recipient_email`); "no (7 days)" gives the default.
    const table = Object.fromEntries(
      rows
        .map((r) => r.split('|').map((c) => c.trim()))
        .flatMap(([, fields, required]) => fields.split(',').map((f) => [f.trim().replace(/`/g, ''), required.split(' ')[0]])),
    );
    const shape = CreatePaymentFields.shape;
    expect(Object.keys(table).sort()).toEqual(Object.keys(shape).sort());
    for (const [field, schema] of Object.entries(shape))
      expect(table[field], field).toBe(schema.safeParse(undefined).success ? 'no' : 'yes');
  });
});
