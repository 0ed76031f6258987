/** What `npm run repair` decides per payment, and the timer facts a repaired run is rebuilt from. */
import { describe, expect, it } from 'vitest';
import { nextDeadlineOf } from '../../src/payments/paymentTimers.rules';
import { repairDecision } from '../../src/payments/repair.rules';
import { paymentState, releasingAt } from './fixtures';

describe('repairDecision', () => {
  it('a finished payment: healthy, unless its run was stopped (its deliveries continue)', () => {
    expect(repairDecision({ status: 'released', version: 4 }, { status: 'COMPLETED' })).toEqual({
      kind: 'healthy',
      why: 'finished (released)',
    });
    expect(repairDecision({ status: 'refunded', version: 4 }, { status: 'missing' })).toEqual({
      kind: 'healthy',
      why: 'finished (refunded)',
    });
    for (const status of ['TERMINATED', 'CANCELLED', 'TIMED_OUT'] as const) {
      expect(repairDecision({ status: 'cancelled', version: 2 }, { status })).toEqual({
        kind: 'deliveries',
        why: `finished (cancelled), but its run is ${status.toLowerCase()}: its deliveries continue`,
      });
    }
  });

  it('an open payment whose run was stopped or is missing: start a new run', () => {
    expect(repairDecision({ status: 'in_custody', version: 2 }, { status: 'missing' })).toEqual({
      kind: 'start',
      why: 'in_custody in the read model, but its run is missing',
    });
    expect(repairDecision({ status: 'disputed', version: 3 }, { status: 'TERMINATED' })).toEqual({
      kind: 'start',
      why: 'disputed in the read model, but its run is terminated',
    });
  });

  it('a running run: healthy at or ahead of the read model, replaced when behind it', () => {
    expect(repairDecision({ status: 'in_custody', version: 3 }, { status: 'RUNNING', version: 2 })).toEqual({
      kind: 'replace',
      why: "its run is at version 2, behind the read model's 3 (reset?)",
    });
    expect(repairDecision({ status: 'in_custody', version: 3 }, { status: 'RUNNING', version: 3 })).toEqual({
      kind: 'healthy',
      why: 'running at version 3',
    });
    expect(repairDecision({ status: 'in_custody', version: 3 }, { status: 'RUNNING' })).toEqual({
      kind: 'healthy',
      why: 'running at version ?',
    });
  });

  it('anything else is for a person to look at', () => {
    for (const status of ['COMPLETED', 'FAILED', 'CONTINUED_AS_NEW'] as const) {
      expect(repairDecision({ status: 'pending_release', version: 3 }, { status })).toEqual({
        kind: 'attention',
        why: `pending_release in the read model, but its run is ${status.toLowerCase()}`,
      });
    }
  });
});

describe('nextDeadlineOf', () => {
  it('the deposit deadline, the earliest auto-release time, or none', () => {
    expect(nextDeadlineOf(paymentState())).toEqual(new Date('2026-11-30T12:00:00.000Z'));
    const due = Date.parse('2026-11-25T10:01:00.000Z');
    expect(nextDeadlineOf(releasingAt(paymentState({ status: 'pending_release', autoReleaseAfterSeconds: 60 }), due))).toEqual(
      new Date(due),
    );
    expect(nextDeadlineOf(paymentState({ status: 'pending_release', autoReleaseAfterSeconds: null }))).toBeNull();
    expect(nextDeadlineOf(releasingAt(paymentState({ status: 'in_custody', autoReleaseAfterSeconds: 60 }), due))).toBeNull();
  });
});
