import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { describe, expect, it, inject } from 'vitest';

/**
 * Replays a recorded production-like history (scripts/record-history.ts) through today's workflow
 * code. A change that would make running payments non-deterministic fails here, before it ships.
 */
describe('workflow determinism', () => {
  it('replays the recorded payment history with the current workflow code', async () => {
    const history = historyFromJSON(JSON.parse(fs.readFileSync(path.resolve(__dirname, 'fixtures/payment-history.json'), 'utf8')));
    expect(history.events?.length).toBeGreaterThan(20);
    const results = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle: { codePath: inject('workflowBundlePath') } }, [{ workflowId: 'recorded-payment', history }])) {
      results.push(result);
    }
    expect(results).toHaveLength(1);
    expect(results[0].error).toBeUndefined();
  });
});
