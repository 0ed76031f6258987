import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { describe, expect, it, inject } from 'vitest';

/**
 * Replays recorded histories (scripts/record-history.ts) through today's workflow code: each file
 * stands for payments running in production when a change ships. A change that would make them
 * non-deterministic fails here. `v1-*` was recorded before the side-effects-as-activities patch,
 * `v2-*` before the money of docs/money.md, `v3-*` with it (a fee, a partial refund, a split) but
 * before the close-when-finished patch (per-action updates, NextDeadline, hand-over), `v4-*` with it
 * but before the first-delivery-inline patch, `v5-*` with it (one of its deliveries retried).
 */
const DIR = path.resolve(__dirname, 'fixtures/histories');
const files = fs
  .readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();

describe('workflow determinism', () => {
  it('has histories from before and after the latest patch', () => {
    expect(files.some((f) => f.startsWith('v1-'))).toBe(true);
    expect(files.some((f) => f.startsWith('v2-'))).toBe(true);
    expect(files).toContain('v3-fee-refund-split.json');
    expect(files).toContain('v4-fee-refund-split.json');
    expect(files).toContain('v5-dispute-refund.json');
  });

  it.each(files)('replays %s with the current workflow code', async (file) => {
    const history = historyFromJSON(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')));
    expect(history.events?.length).toBeGreaterThan(10);
    const results = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle: { codePath: inject('workflowBundlePath') } }, [
      { workflowId: file, history },
    ])) {
      results.push(result);
    }
    expect(results).toHaveLength(1);
    expect(results[0].error).toBeUndefined();
  });
});
