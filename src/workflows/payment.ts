import {
  ApplicationFailure,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  log,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities } from '../activities';
import {
  type ClientAction,
  type HistoryEntry,
  type PaymentState,
  type Resolution,
  type Transition,
  type TransitionAction,
  applyTransition,
  checkClientTransition,
  checkTransition,
  creationEntry,
  isTerminal,
} from '../domain/payment';
import { toMajor } from '../domain/money';
import { PaymentStatusKey } from '../domain/searchAttributes';
import { webhookDeliveryWorkflow } from './webhookDelivery';

export interface PaymentWorkflowInput {
  payment: PaymentState;
  /** API key id or user id that created the payment. */
  actor: string;
  requestId?: string;
}

export interface TransitionRequest {
  action: ClientAction;
  resolution?: Resolution;
  reason?: string | null;
  actor: string;
  requestId?: string;
}

/** The validated, synchronous way in: the caller gets the new payment or a refusal. */
export const transitionUpdate = defineUpdate<PaymentState, [TransitionRequest]>('transition');
/** The same transitions, fire-and-forget (an illegal one is logged and ignored). */
export const transitionSignal = defineSignal<[TransitionRequest]>('transition');
export const getPaymentQuery = defineQuery<PaymentState>('getPayment');
export const getHistoryQuery = defineQuery<HistoryEntry[]>('getHistory');

/** Failure type of a refused transition; `details[0]` is the current status. */
export const INVALID_TRANSITION = 'InvalidTransition';

// Projection to PostgreSQL and delivery planning are short database writes: local activities keep
// them out of the task queue round trip, so an update answers as soon as the read model agrees.
const { recordTransition, planWebhookDeliveries } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '100 ms', backoffCoefficient: 2, maximumInterval: '5 seconds' },
});

/** What the Temporal UI shows as the payment's current details. */
function currentDetails(s: PaymentState): string {
  return `**${s.status}** — ${toMajor(s.amountMinor, s.currency)} ${s.currency}`;
}

export async function paymentWorkflow(input: PaymentWorkflowInput): Promise<PaymentState> {
  let state = input.payment;
  const history: HistoryEntry[] = [creationEntry(state, input.actor)];
  const background: Promise<unknown>[] = [];
  let pendingReleaseSince: number | null = null;

  setHandler(getPaymentQuery, () => state);
  setHandler(getHistoryQuery, () => history);

  /** Change state synchronously (so the next validator sees it); returns what the side effects need. */
  function apply(transition: Transition, actor: string, reason: string | null) {
    const { state: next, entry } = applyTransition(state, transition, { actor, reason, at: new Date().toISOString() });
    state = next;
    if (next.status === 'pending_release') pendingReleaseSince = Date.parse(entry.at);
    history.push(entry);
    upsertSearchAttributes([{ key: PaymentStatusKey, value: next.status }]);
    setCurrentDetails(currentDetails(next));
    return { snapshot: next, entry };
  }

  async function publish(snapshot: PaymentState, entry: HistoryEntry, requestId?: string): Promise<void> {
    log.info('payment transition', { request_id: requestId, action: entry.action, from: entry.from, to: entry.to, version: snapshot.version });
    await recordTransition(snapshot, entry, requestId);
    // Webhooks go out in the background: a slow or dead receiver never delays a transition.
    background.push(dispatchWebhooks(snapshot, entry));
  }

  async function dispatchWebhooks(snapshot: PaymentState, entry: HistoryEntry): Promise<void> {
    const { deliveryIds, retry } = await planWebhookDeliveries(snapshot, entry.event, entry.at);
    for (const deliveryId of deliveryIds) {
      try {
        await startChild(webhookDeliveryWorkflow, {
          workflowId: deliveryId,
          args: [{ deliveryId, retry }],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          staticSummary: `${entry.event} for ${snapshot.id}`,
        });
      } catch (err) {
        // Delivery ids derive from (payment, version, configuration): "already started" means this
        // very delivery is under way. Anything else fails the task loudly, to be retried.
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        log.warn('webhook delivery already started', { deliveryId });
      }
    }
  }

  /** The transition a client's `action` may take now, or a failure naming the current status. */
  function allowed(action: ClientAction, resolution?: Resolution): Transition {
    const check = checkClientTransition(state, action, resolution, Date.now(), pendingReleaseSince);
    if (check.ok) return check.transition;
    throw ApplicationFailure.create({
      message: check.message,
      type: check.reason === 'invalid_transition' ? INVALID_TRANSITION : 'ResolutionRequired',
      nonRetryable: true,
      details: [state.status],
    });
  }

  setHandler(
    transitionUpdate,
    async (req) => {
      // Validated again: an update accepted earlier in this task may have moved the payment.
      const { snapshot, entry } = apply(allowed(req.action, req.resolution), req.actor, req.reason ?? null);
      await publish(snapshot, entry, req.requestId);
      return snapshot;
    },
    { validator: (req) => void allowed(req.action, req.resolution) },
  );

  setHandler(transitionSignal, async (req) => {
    const check = checkClientTransition(state, req.action, req.resolution, Date.now(), pendingReleaseSince);
    if (!check.ok) {
      log.warn('transition signal refused', { action: req.action, status: state.status });
      return;
    }
    const { snapshot, entry } = apply(check.transition, req.actor, req.reason ?? null);
    await publish(snapshot, entry, req.requestId);
  });

  /** A timer-driven transition; re-checked, since a message may have moved the payment meanwhile. */
  async function fire(action: TransitionAction): Promise<void> {
    const check = checkTransition(state.status, action);
    if (!check.ok) return;
    const { snapshot, entry } = apply(check.transition, 'system', action === 'deadline' ? 'deposit deadline passed' : 'auto-release delay elapsed');
    await publish(snapshot, entry);
  }

  setCurrentDetails(currentDetails(state));
  // The created snapshot, not `state`: a buffered signal or an update may already have moved it on.
  await recordTransition(input.payment, history[0], input.requestId);
  background.push(dispatchWebhooks(input.payment, history[0]));

  while (!isTerminal(state.status)) {
    const current = state.status;
    const moved = () => state.status !== current;
    if (current === 'pending_deposit') {
      const deadlineMs = Math.max(Date.parse(state.depositDeadline) - Date.now(), 1);
      if (!(await condition(moved, deadlineMs))) await fire('deadline');
    } else if (current === 'pending_release' && state.autoReleaseAfterSeconds != null && pendingReleaseSince != null) {
      const dueMs = Math.max(pendingReleaseSince + state.autoReleaseAfterSeconds * 1000 - Date.now(), 1);
      if (!(await condition(moved, dueMs))) await fire('auto_release');
    } else {
      await condition(moved);
    }
  }

  // Let in-flight handlers and webhook child starts finish before the run closes.
  await condition(allHandlersFinished);
  await Promise.all(background);
  log.info('payment reached a terminal status', { status: state.status, workflowId: workflowInfo().workflowId });
  return state;
}
