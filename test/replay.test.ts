import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { temporal as proto } from '@temporalio/proto';
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
    // One set, v1 (issue #57: a new baseline before 1.0, the patches of delivery retired with the sets
    // they served; re-recorded when every delivery became a workflow of its own, two of which are here).
    expect(files).toEqual([
      'v1-approve-release.json',
      'v1-clock-auto-release.json',
      'v1-delivery-full-endpoint.json',
      'v1-delivery-retried.json',
      'v1-deposit-deadline.json',
      'v1-dispute-agreement.json',
      'v1-dispute-default.json',
      'v1-dispute-refund.json',
      'v1-failing-receiver.json',
      'v1-fee-refund-split.json',
      'v1-full-endpoint.json',
      'v1-signal-auto-release.json',
      'v1-staged-milestones.json',
    ]);
  });

  it('has a staged payment’s history with every milestone update and a test clock’s auto-release', () => {
    for (const set of ['v1']) {
      const updates = (historyOf(`${set}-staged-milestones.json`).events ?? []).flatMap((e) => {
        const name = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name;
        return name ? [name] : [];
      });
      // `created`: the create's update-with-start, answered once the creation is committed (docs/architecture.md).
      expect(updates).toEqual([
        'created',
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
        historyOf('v1-dispute-refund.json'),
        'altered',
      ),
    ).rejects.toBeInstanceOf(DeterminismViolationError);
  }, 60_000);

  it('records the disputes patch where a dispute opens, and no other marker but the creation’s publication', () => {
    for (const file of files) {
      const markers = (historyOf(file).events ?? []).flatMap((e) => {
        const m = e.markerRecordedEventAttributes;
        const data = m?.details?.['patch-data']?.payloads?.[0]?.data;
        return m ? [data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { id: string }).id : m.markerName] : [];
      });
      const patches = markers.filter((m) => m !== 'core_local_activity');
      // A payment never disputed has no patch marker.
      const disputed = /dispute|fee-refund-split|staged-milestones/.test(file);
      expect(patches, file).toEqual(disputed ? ['disputes'] : []);
      // Every payment's creation is published by one local activity (docs/architecture.md); a delivery's run has none.
      expect(localActivities(file), file).toEqual(file.includes('-delivery-') ? [] : ['publishTransition']);
    }
  });

  it('answers each update once the publication it caused has completed (one writer: docs/architecture.md)', () => {
    for (const file of ['v1-approve-release.json', 'v1-dispute-refund.json', 'v1-fee-refund-split.json']) {
      const events = historyOf(file).events ?? [];
      const id = (e: (typeof events)[number]) => Number(e.eventId);
      const publications = new Set(
        events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'publishTransition').map(id),
      );
      // A step's publication is an activity completed; the creation's, a local activity's marker.
      const published = events
        .filter(
          (e) =>
            publications.has(Number(e.activityTaskCompletedEventAttributes?.scheduledEventId)) ||
            localActivityType(e) === 'publishTransition',
        )
        .map(id);
      const accepted = events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).map(id);
      const completed = events.filter((e) => e.workflowExecutionUpdateCompletedEventAttributes);
      expect(completed.length, file).toBe(accepted.length);
      for (const done of completed) {
        const from = Number(done.workflowExecutionUpdateCompletedEventAttributes!.acceptedEventId);
        expect(
          published.some((p) => p > from && p < id(done)),
          `${file}: the update accepted at event ${from} answered with no publication completed in between`,
        ).toBe(true);
      }
    }
  });

  it('holds money as bigint in the payloads', () => {
    for (const file of files.filter((f) => !f.includes('-delivery-'))) {
      const [started] = historyOf(file).events ?? [];
      const [input] = started.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
      const payment = payloadConverter.fromPayload<{ payment: { amountMinor: unknown } }>(input).payment;
      expect(typeof payment.amountMinor, file).toBe('bigint');
    }
  });

  it('has a dispute’s history with evidence, offers, a decline and an agreement, and one with two respondents’ deadlines', () => {
    const events = historyOf('v1-dispute-agreement.json').events ?? [];
    const updates = events.flatMap((e) => {
      const name = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name;
      return name ? [name] : [];
    });
    expect(updates).toEqual([
      'created',
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
    const timers = (historyOf('v1-dispute-default.json').events ?? []).flatMap((e) =>
      e.timerStartedEventAttributes ? [Buffer.from(e.userMetadata?.summary?.data ?? new Uint8Array()).toString('utf8')] : [],
    );
    expect(timers.filter((t) => t.includes('dispute respond_by dp_'))).toHaveLength(2);
  });

  it('has each delivery in a workflow of its own, started by the publication (no child of the payment’s run), its attempts on the webhooks task queue, a full endpoint’s retried', () => {
    const ABANDON = proto.api.enums.v1.ParentClosePolicy.PARENT_CLOSE_POLICY_ABANDON;
    for (const file of files.filter((f) => !f.includes('-delivery-'))) {
      const events = historyOf(file).events ?? [];
      // No attempt and no delivery's start in the payment's history: the publication starts each delivery's workflow.
      const scheduled = events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
      expect(
        scheduled.filter((name) => name === 'deliverWebhook'),
        file,
      ).toEqual([]);
      expect(
        events.flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes ?? []),
        file,
      ).toEqual([]);
    }
    for (const file of files.filter((f) => f.includes('-delivery-'))) {
      const events = historyOf(file).events ?? [];
      const [started] = events;
      expect(started.workflowExecutionStartedEventAttributes?.workflowType?.name, file).toBe('webhookDeliveryWorkflow');
      // A chain's head is started by a publication; the delivery after it is its child.
      expect(started.workflowExecutionStartedEventAttributes?.parentWorkflowExecution ?? null, file).toBeNull();
      const queue = started.workflowExecutionStartedEventAttributes?.taskQueue?.name;
      const scheduled = events.flatMap((e) => e.activityTaskScheduledEventAttributes ?? []);
      expect([...new Set(scheduled.map((a) => a.taskQueue?.name))], file).toEqual([queue]);
      expect(queue, file).toMatch(/-webhooks$/);
      const attempts = events.flatMap((e) =>
        e.activityTaskStartedEventAttributes ? [Number(e.activityTaskStartedEventAttributes.attempt)] : [],
      );
      // Attempted more than once, no signal waking it: a full endpoint's turn-away retried by Temporal's retry policy; a
      // chain head's first attempt made alone, its next started as a child abandoned on close, then the rest of its series.
      if (file.endsWith('-delivery-full-endpoint.json')) expect(Math.max(...attempts), file).toBeGreaterThan(1);
      if (file.endsWith('-delivery-retried.json')) {
        expect(attempts, file).toEqual([1, 1]);
        const next = events.flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes ?? []);
        expect(
          next.map((c) => [c.workflowType?.name, c.parentClosePolicy]),
          file,
        ).toEqual([['webhookDeliveryWorkflow', ABANDON]]);
      }
      expect(events.filter((e) => e.workflowExecutionSignaledEventAttributes)).toEqual([]);
    }
  });
});

/** The type of the local activity a marker records, if it records one. */
function localActivityType(e: proto.api.history.v1.IHistoryEvent): string | undefined {
  const m = e.markerRecordedEventAttributes;
  const data = m?.markerName === 'core_local_activity' ? m.details?.data?.payloads?.[0]?.data : undefined;
  return data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type: string }).activity_type : undefined;
}

/** The local activities a recorded history ran, in order. */
function localActivities(file: string): string[] {
  return (historyOf(file).events ?? []).flatMap((e) => localActivityType(e) ?? []);
}
