import {
  ActivityFailure,
  ApplicationFailure,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities, DeliveryPlan } from '../activities';
import {
  type ClientAction,
  type HistoryEntry,
  type PaymentState,
  type Resolution,
  type TransitionAction,
  type TransitionPlan,
  applyTransition,
  checkTransition,
  creationEntry,
  dueTimer,
  isTerminal,
  planMovement,
  planTransition,
} from '../domain/payment';
import { storedExponent, toMajor } from '../domain/money';
import { PaymentStatusKey } from '../domain/searchAttributes';
import { deliveryActivityOptions, webhookDeliveryWorkflow } from './webhookDelivery';

export interface PaymentWorkflowInput {
  payment: PaymentState;
  /** API key id or user id that created the payment. */
  actor: string;
  requestId?: string;
}

export interface TransitionRequest {
  action: ClientAction;
  resolution?: Resolution;
  /** A partial refund's amount, or a split's refund_amount: minor units as decimal text. */
  amountMinor?: string;
  reason?: string | null;
  actor: string;
  requestId?: string;
}

/**
 * What a transition update answers: the payment and the history entry the transition wrote. Runs
 * recorded before the `side-effects-as-activities` patch answered the bare payment.
 */
export interface TransitionOutcome {
  payment: PaymentState;
  entry: HistoryEntry;
}

/** The validated, synchronous way in: the caller gets the new payment or a refusal. */
export const transitionUpdate = defineUpdate<TransitionOutcome | PaymentState, [TransitionRequest]>('transition');
/** The same transitions, fire-and-forget (an illegal one is logged and ignored). */
export const transitionSignal = defineSignal<[TransitionRequest]>('transition');
/**
 * Test clocks (test mode only): move this payment's clock forward, so that its deposit deadline or
 * auto-release comes due now, with the normal history entry and webhook. Time elsewhere is untouched.
 */
export const advanceClockUpdate = defineUpdate<{ payment: PaymentState; entry?: HistoryEntry }, [{ seconds: number }]>('advanceClock');
export const getPaymentQuery = defineQuery<PaymentState>('getPayment');
export const getHistoryQuery = defineQuery<HistoryEntry[]>('getHistory');

/** Failure type of a refused transition; `details[0]` is the current status. */
export const INVALID_TRANSITION = 'InvalidTransition';
/** Failure type of an amount the payment cannot pay (more than held, say); `details[0]` is the field. */
export const INVALID_AMOUNT = 'InvalidAmount';

/**
 * Version marker: side effects (read model, webhooks) run as ordinary activities after the
 * workflow task that made a transition durable, instead of local activities and child workflows
 * inside it. Runs recorded before it replay the old path (see docs/architecture.md).
 */
export const SIDE_EFFECTS_AS_ACTIVITIES = 'side-effects-as-activities';

// Projection and delivery planning in one transaction. An ordinary activity: it is scheduled by
// the workflow task that made the transition durable, so the read model never runs ahead of the
// workflow. Database outages are retried for hours; data PostgreSQL refuses is not retryable.
const { projectTransition } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: {
    initialInterval: '200 ms',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 500,
    nonRetryableErrorTypes: ['ProjectionRefused'],
  },
});
// Rare path: make a projection that failed for good visible (metric and error log).
const { reportProjectionFailure } = proxyLocalActivities<Activities>({ startToCloseTimeout: '5 seconds' });
// The path before SIDE_EFFECTS_AS_ACTIVITIES, kept so that runs recorded with it replay.
const { recordTransition, planWebhookDeliveries } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '100 ms', backoffCoefficient: 2, maximumInterval: '5 seconds' },
});

/** What the Temporal UI shows as the payment's current details. */
function currentDetails(s: PaymentState): string {
  return `**${s.status}** — ${toMajor(s.amountMinor, s.currency, storedExponent(s))} ${s.currency}`;
}

/** The payment's logic; the workflow function below only wires messages and timers to it. */
class Payment {
  state: PaymentState;
  readonly history: HistoryEntry[];
  pendingReleaseSince: number | null = null;
  /** How far a test clock moved this payment's time forward (ms); 0 for every live payment. */
  clockOffsetMs = 0;
  /** Side effects still running; the run closes only when they are done. */
  private readonly sideEffects: Promise<unknown>[] = [];

  constructor(private readonly input: PaymentWorkflowInput) {
    this.state = input.payment;
    this.history = [creationEntry(input.payment, input.actor)];
    setCurrentDetails(currentDetails(this.state));
  }

  /** The plan of the transition a client's request may take now, or a failure naming the current status or the field. */
  transitionFor(req: TransitionRequest): Extract<TransitionPlan, { ok: true }> {
    const amountMinor = req.amountMinor === undefined ? undefined : BigInt(req.amountMinor);
    const plan = planTransition(
      this.state,
      { action: req.action, resolution: req.resolution, amountMinor },
      this.now(),
      this.pendingReleaseSince,
    );
    if (plan.ok) return plan;
    if (plan.reason === 'invalid_amount') {
      throw ApplicationFailure.create({ message: plan.message, type: INVALID_AMOUNT, nonRetryable: true, details: [plan.field] });
    }
    throw ApplicationFailure.create({
      message: plan.message,
      type: plan.reason === 'invalid_transition' ? INVALID_TRANSITION : 'ResolutionRequired',
      nonRetryable: true,
      details: [this.state.status],
    });
  }

  /** The payment's time: the workflow's clock, moved forward by any test clock. */
  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  /** Refused for live payments: a live payment's time is the world's. */
  validateAdvance(seconds: number): void {
    if (this.state.livemode) throw ApplicationFailure.nonRetryable('test clocks are for test-mode payments only', 'LivePayment');
    if (!Number.isInteger(seconds) || seconds < 1)
      throw ApplicationFailure.nonRetryable('seconds must be a positive integer', 'InvalidArgument');
  }

  /** Move the clock; a timer now due fires at once (the run loop re-arms the others). */
  async advance(seconds: number): Promise<{ payment: PaymentState; entry?: HistoryEntry }> {
    this.clockOffsetMs += seconds * 1000;
    const due = dueTimer(this.state, this.now(), this.pendingReleaseSince);
    return (due && (await this.fire(due))) || { payment: this.state };
  }

  /** Change state synchronously (so the next validator sees it); side effects come after. */
  apply(plan: Extract<TransitionPlan, { ok: true }>, actor: string, reason: string | null, requestId?: string): TransitionOutcome {
    const { state: next, entry } = applyTransition(this.state, plan, { actor, reason, at: new Date().toISOString() });
    this.state = next;
    // On the payment's clock, so that a test clock's earlier moves do not count towards auto-release.
    if (next.status === 'pending_release') this.pendingReleaseSince = Date.parse(entry.at) + this.clockOffsetMs;
    this.history.push(entry);
    upsertSearchAttributes([{ key: PaymentStatusKey, value: next.status }]);
    setCurrentDetails(currentDetails(next));
    log.info('payment transition', { request_id: requestId, action: entry.action, from: entry.from, to: entry.to, version: next.version });
    return { payment: next, entry };
  }

  /** The creation's side effects, then every later transition's through `publish`. */
  async start(): Promise<void> {
    const created = { payment: this.input.payment, entry: this.history[0] };
    if (patched(SIDE_EFFECTS_AS_ACTIVITIES)) this.publish(created, this.input.requestId);
    else await this.publishInline(created, this.input.requestId);
  }

  /** A client's transition (update or signal): state first, side effects after, never awaited. */
  async transition(req: TransitionRequest, plan: Extract<TransitionPlan, { ok: true }>): Promise<TransitionOutcome | PaymentState> {
    const outcome = this.apply(plan, req.actor, req.reason ?? null, req.requestId);
    if (patched(SIDE_EFFECTS_AS_ACTIVITIES)) {
      this.publish(outcome, req.requestId);
      return outcome;
    }
    await this.publishInline(outcome, req.requestId);
    return outcome.payment;
  }

  /** A timer's transition; re-checked, since a message may have moved the payment meanwhile. */
  async fire(action: TransitionAction): Promise<TransitionOutcome | undefined> {
    const check = checkTransition(this.state.status, action);
    if (!check.ok) return undefined;
    const plan = planMovement(this.state, check.transition);
    if (!plan.ok) return undefined;
    const reason = action === 'deadline' ? 'deposit deadline passed' : 'auto-release delay elapsed';
    const outcome = this.apply(plan, 'system', reason);
    if (patched(SIDE_EFFECTS_AS_ACTIVITIES)) this.publish(outcome);
    else await this.publishInline(outcome);
    return outcome;
  }

  /** Read model and webhooks in the background: a slow receiver never delays a transition. */
  private publish({ payment, entry }: TransitionOutcome, requestId?: string): void {
    this.sideEffects.push(this.project(payment, entry, requestId));
  }

  private async project(payment: PaymentState, entry: HistoryEntry, requestId?: string): Promise<void> {
    let plan: DeliveryPlan;
    try {
      plan = await projectTransition(payment, entry, requestId);
    } catch (err) {
      // Bounded: the payment's timers and later transitions go on; operators are alerted.
      const message = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
      await reportProjectionFailure(payment.id, payment.version, message);
      return;
    }
    await Promise.all(plan.deliveryIds.map((deliveryId) => this.deliver(deliveryId, plan)));
  }

  /** One delivery on the webhook task queue, under Temporal's retry policy from the plan. */
  private async deliver(deliveryId: string, { retry, taskQueue }: DeliveryPlan): Promise<void> {
    const { deliverWebhook } = proxyActivities<Activities>({
      ...deliveryActivityOptions(retry),
      taskQueue,
      activityId: deliveryId,
      summary: deliveryId,
    });
    try {
      await deliverWebhook(deliveryId, retry.timeoutMs, retry.maximumAttempts);
    } catch (err) {
      // The delivery log holds every attempt; the payment itself is not affected.
      log.warn('webhook delivery failed after its retries', { deliveryId, error: String(err) });
    }
  }

  /** The path before SIDE_EFFECTS_AS_ACTIVITIES: projection inside the task, deliveries as children. */
  private async publishInline({ payment, entry }: TransitionOutcome, requestId?: string): Promise<void> {
    await recordTransition(payment, entry, requestId);
    this.sideEffects.push(this.dispatchChildren(payment, entry));
  }

  private async dispatchChildren(snapshot: PaymentState, entry: HistoryEntry): Promise<void> {
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
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        log.warn('webhook delivery already started', { deliveryId });
      }
    }
  }

  /** Waits through the payment's life: the deposit deadline and auto-release are named timers. */
  async run(): Promise<PaymentState> {
    await this.start();
    while (!isTerminal(this.state.status)) {
      const current = this.state.status;
      const offset = this.clockOffsetMs;
      // A test clock's move wakes the loop too, so that the timers are re-armed on the new time.
      const moved = () => this.state.status !== current || this.clockOffsetMs !== offset;
      if (current === 'pending_deposit') {
        const dueMs = Math.max(Date.parse(this.state.depositDeadline) - this.now(), 1);
        if (!(await condition(moved, dueMs, { summary: 'deposit deadline' }))) await this.fire('deadline');
      } else if (current === 'pending_release' && this.state.autoReleaseAfterSeconds != null && this.pendingReleaseSince != null) {
        const dueMs = Math.max(this.pendingReleaseSince + this.state.autoReleaseAfterSeconds * 1000 - this.now(), 1);
        if (!(await condition(moved, dueMs, { summary: 'auto-release' }))) await this.fire('auto_release');
      } else {
        await condition(moved);
      }
    }
    // Let in-flight handlers, the read model and webhook deliveries finish before the run closes.
    await condition(allHandlersFinished);
    await Promise.all(this.sideEffects);
    log.info('payment reached a terminal status', { status: this.state.status, workflowId: workflowInfo().workflowId });
    return this.state;
  }
}

export async function paymentWorkflow(input: PaymentWorkflowInput): Promise<PaymentState> {
  const payment = new Payment(input);
  setHandler(getPaymentQuery, () => payment.state);
  setHandler(getHistoryQuery, () => payment.history);
  setHandler(
    transitionUpdate,
    // Validated again: an update accepted earlier in this task may have moved the payment.
    (req) => payment.transition(req, payment.transitionFor(req)),
    { validator: (req) => void payment.transitionFor(req) },
  );
  setHandler(advanceClockUpdate, ({ seconds }) => payment.advance(seconds), {
    validator: ({ seconds }) => payment.validateAdvance(seconds),
  });
  setHandler(transitionSignal, async (req) => {
    let plan: Extract<TransitionPlan, { ok: true }>;
    try {
      plan = payment.transitionFor(req);
    } catch (err) {
      log.warn('transition signal refused', { action: req.action, status: payment.state.status, error: String(err) });
      return;
    }
    await payment.transition(req, plan);
  });
  return payment.run();
}
