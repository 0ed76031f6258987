import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { describe, expect, it, inject } from 'vitest';

/**
 * Replays recorded histories (scripts/record-history.ts) through today's workflow code: each file
 * stands for payments running in production when a change ships. A change that would make them
 * non-deterministic fails here (docs/architecture.md, "Shipping a workflow change safely").
 */
const DIR = path.resolve(__dirname, 'fixtures/histories');
const files = fs
  .readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();
const historyOf = (file: string) => historyFromJSON(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')));

describe('workflow determinism', () => {
  it('has the baseline histories', () => {
    expect(files).toEqual([
      'base-approve-release.json',
      'base-clock-auto-release.json',
      'base-deposit-deadline.json',
      'base-dispute-refund.json',
      'base-fee-refund-split.json',
      'base-handover.json',
      'base-signal-auto-release.json',
      'base-staged-milestones.json',
      'disputes-dispute-agreement.json',
      'disputes-dispute-default.json',
      'road-approve-release.json',
      'road-clock-auto-release.json',
      'road-deposit-deadline.json',
      'road-dispute-refund.json',
      'road-failing-receiver.json',
      'road-fee-refund-split.json',
      'road-signal-auto-release.json',
      'road-staged-milestones.json',
    ]);
  });

  it('has a staged payment’s history with every milestone update and a test clock’s auto-release', () => {
    for (const set of ['base', 'road']) {
      const updates = (historyOf(`${set}-staged-milestones.json`).events ?? []).flatMap((e) => {
        const name = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name;
        return name ? [name] : [];
      });
      expect(updates).toEqual([
        'deposit',
        'milestone_approve',
        'milestone_release',
        'milestone_approve',
        'advanceClock',
        'milestone_refund',
        'milestone_dispute',
        'milestone_resolve',
      ]);
    }
  });

  it.each(files)('replays %s with the current workflow code', async (file) => {
    const history = historyOf(file);
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

  it('fails the replay of a workflow changed without a patch', async () => {
    await expect(
      Worker.runReplayHistory(
        { workflowsPath: path.resolve(__dirname, 'fixtures/altered-workflows') },
        historyOf('base-dispute-refund.json'),
        'altered',
      ),
    ).rejects.toBeInstanceOf(DeterminismViolationError);
  }, 60_000);

  const markersOf = (file: string) =>
    (historyOf(file).events ?? []).flatMap((e) => {
      const m = e.markerRecordedEventAttributes;
      const data = m?.details?.['patch-data']?.payloads?.[0]?.data;
      return m ? [data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { id: string }).id : m.markerName] : [];
    });

  it('records the one-road patch in a new payment’s history, and in no history recorded before it', () => {
    for (const file of files) {
      expect(markersOf(file)[0], file).toBe(file.startsWith('base-') ? undefined : 'one-road');
    }
  });

  it('records the disputes patch where a dispute is opened, and only there: a payment never disputed has no marker', () => {
    for (const file of files) {
      expect(markersOf(file), file).toEqual(
        file.startsWith('base-') ? [] : file.startsWith('road-') ? ['one-road'] : ['one-road', 'disputes'],
      );
    }
    const events = historyOf('disputes-dispute-agreement.json').events ?? [];
    const updates = events.flatMap((e) => {
      const name = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name;
      return name ? [name] : [];
    });
    expect(updates).toEqual([
      'deposit',
      'dispute',
      'dispute_evidence',
      'dispute_evidence',
      'dispute_offer',
      'dispute_offer',
      'dispute_offer',
      'dispute_decline',
      'dispute_accept',
    ]);
    const timers = (historyOf('disputes-dispute-default.json').events ?? []).flatMap((e) =>
      e.timerStartedEventAttributes ? [Buffer.from(e.userMetadata?.summary?.data ?? new Uint8Array()).toString('utf8')] : [],
    );
    expect(timers.filter((t) => t.includes('dispute respond_by dp_'))).toHaveLength(2);
  });

  it('has no delivery attempt in a payment’s history since the one road', () => {
    for (const file of files.filter((f) => !f.startsWith('base-'))) {
      const activities = (historyOf(file).events ?? []).flatMap((e) => {
        const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
        return name ? [name] : [];
      });
      expect(new Set(activities), file).toEqual(new Set(['publishTransition']));
    }
  });
});
