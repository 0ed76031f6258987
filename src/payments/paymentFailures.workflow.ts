/**
 * A refused step as the failure the API maps (src/platform/useCaseErrors.ts): its type names the refusal,
 * its details the field, or the status refused with the actions it allows.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import {
  DISPUTE_OUT_OF_TURN,
  INVALID_AMOUNT,
  INVALID_ARGUMENT,
  INVALID_TRANSITION,
  RESOLUTION_REQUIRED,
  UNKNOWN_MILESTONE,
  UNKNOWN_OFFER,
} from '../platform/failures.rules';
import type { DisputeRefusal } from './disputes.rules';
import type { planTransition } from './paymentPlan.rules';

type TransitionRefusal = Extract<ReturnType<typeof planTransition>, { ok: false }>;

/** A client's transition refused: naming the field, the milestone or the argument, or the status and the actions it allows. */
export function transitionFailure(plan: TransitionRefusal): ApplicationFailure {
  if (plan.reason === 'invalid_amount') {
    return ApplicationFailure.create({ message: plan.message, type: INVALID_AMOUNT, nonRetryable: true, details: [plan.field] });
  }
  if (plan.reason === 'unknown_milestone') return ApplicationFailure.nonRetryable(plan.message, UNKNOWN_MILESTONE);
  if (plan.reason === 'invalid_argument') return ApplicationFailure.nonRetryable(plan.message, INVALID_ARGUMENT);
  return ApplicationFailure.create({
    message: plan.message,
    type: plan.reason === 'invalid_transition' ? INVALID_TRANSITION : RESOLUTION_REQUIRED,
    nonRetryable: true,
    details: [plan.status, plan.allowed],
  });
}

/** A dispute's refusal as the failure the API maps: out of turn (naming the dispute's status), an unknown offer, or as a transition's. */
export function disputeFailure(plan: DisputeRefusal): ApplicationFailure {
  switch (plan.reason) {
    case 'dispute_out_of_turn':
      return ApplicationFailure.create({
        message: plan.message,
        type: DISPUTE_OUT_OF_TURN,
        nonRetryable: true,
        details: [plan.disputeStatus, plan.disputeId],
      });
    case 'unknown_offer':
      return ApplicationFailure.nonRetryable(plan.message, UNKNOWN_OFFER);
    default:
      return transitionFailure(plan);
  }
}
