import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { describe, expect, it, inject } from 'vitest';
import { dataConverter } from '../src/platform/worker/dataConverter';
import { payloadConverter } from '../src/platform/payloadConverter.workflow';

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
      'bigint-approve-release.json',
      'bigint-clock-auto-release.json',
      'bigint-deposit-deadline.json',
      'bigint-dispute-agreement.json',
      'bigint-dispute-default.json',
      'bigint-dispute-refund.json',
      'bigint-failing-receiver.json',
      'bigint-fee-refund-split.json',
      'bigint-signal-auto-release.json',
      'bigint-staged-milestones.json',
      'disputes-dispute-agreement.json',
      'disputes-dispute-default.json',
      'inrun-approve-release.json',
      'inrun-clock-auto-release.json',
      'inrun-deposit-deadline.json',
      'inrun-dispute-refund.json',
      'inrun-failing-receiver.json',
      'inrun-fee-refund-split.json',
      'inrun-signal-auto-release.json',
      'inrun-staged-milestones.json',
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
    for (const set of ['base', 'road', 'inrun']) {
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
    for await (const result of Worker.runReplayHistories({ workflowBundle: { codePath: inject('workflowBundlePath') }, dataConverter }, [
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

  it('records the one-road and in-run patches in a new payment’s history, and none in a history recorded before it', () => {
    for (const file of files) {
      const markers = (historyOf(file).events ?? []).flatMap((e) => {
        const m = e.markerRecordedEventAttributes;
        const data = m?.details?.['patch-data']?.payloads?.[0]?.data;
        return m ? [data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { id: string }).id : m.markerName] : [];
      });
      // The disputes patch is recorded where a dispute opens, and only there: a payment never disputed has no marker.
      const disputed = /dispute|fee-refund-split|staged-milestones/.test(file);
      const expected =
        file.startsWith('disputes-') || (file.startsWith('bigint-') && disputed)
          ? ['one-road', 'deliveries-in-run', 'disputes']
          : file.startsWith('inrun-') || file.startsWith('bigint-')
            ? ['one-road', 'deliveries-in-run']
            : file.startsWith('road-')
              ? ['one-road']
              : [];
      expect(markers, file).toEqual(expected);
    }
  });

  it('holds money as bigint in the payloads of the bigint set and those after it, and as text in every set recorded before it', () => {
    for (const file of files) {
      const [started] = historyOf(file).events ?? [];
      const [input] = started.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
      const payment = payloadConverter.fromPayload<{ payment: { amountMinor: unknown } }>(input).payment;
      expect(typeof payment.amountMinor, file).toBe(/^bigint-/.test(file) ? 'bigint' : 'string');
    }
  });

  it('has a dispute’s history with evidence, offers, a decline and an agreement, and one with two respondents’ deadlines', () => {
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

  it('had no delivery attempt in a payment’s history between the one road and the in-run series', () => {
    for (const file of files.filter((f) => f.startsWith('road-'))) {
      const activities = (historyOf(file).events ?? []).flatMap((e) => {
        const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
        return name ? [name] : [];
      });
      expect(new Set(activities), file).toEqual(new Set(['publishTransition']));
    }
  });

  it('has each delivery’s attempts on the webhooks task queue since the in-run series, and a failing one handed over', () => {
    for (const file of files.filter((f) => f.startsWith('inrun-'))) {
      const events = historyOf(file).events ?? [];
      const scheduled = events.flatMap((e) => e.activityTaskScheduledEventAttributes ?? []);
      const queueOf = (name: string) => new Set(scheduled.filter((a) => a.activityType?.name === name).map((a) => a.taskQueue?.name));
      const [payments] = [...queueOf('publishTransition')];
      expect([...queueOf('deliverWebhook')], file).toEqual([`${payments}-webhooks`]);
      const handedOver = events.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes);
      if (file === 'inrun-failing-receiver.json') expect(handedOver.length, file).toBeGreaterThan(0);
    }
  });
});
