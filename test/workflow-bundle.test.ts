// The workflow bundle holds only what workflows run: every module in it is evaluated again at each
// workflow's start in the reusable V8 context, so a schema library or a data table there costs
// every payment (docs/benchmarks.md, "The workflow bundle").
import fs from 'node:fs';
import { describe, expect, inject, it } from 'vitest';

const modulesOf = (code: string) => [...code.matchAll(/!\*\*\* \.\/(\S+) \*\*\*!/g)].map((m) => m[1]);

describe('the workflow bundle', () => {
  const modules = modulesOf(fs.readFileSync(inject('workflowBundlePath'), 'utf8'));

  it('lists its modules (the check below reads them)', () => {
    expect(modules).toContain('src/payments/payment.workflow.ts');
    expect(modules).toContain('src/payments/payment.rules.ts');
  });

  it('holds neither zod nor the ISO 4217 table', () => {
    expect(modules.filter((m) => /node_modules\/(zod|currency-codes)\//.test(m))).toEqual([]);
  });

  it('holds no module of the API, the database or the activities', () => {
    expect(modules.filter((m) => /^src\/(api|db|services|activities|lib)\//.test(m))).toEqual([]);
  });
});
