/**
 * The payment workflow, one run per payment: the state machine's messages (per-action updates, the
 * legacy `transition` update and signal), its timers, and its side effects as activities.
 */
import {
  type ActivityOptions,
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  isCancellation,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities, DeliveryPlan, DeliveryTarget } from '../activities';
import {
  CLIENT_ACTIONS,
  type ClientAction,
  type HistoryEntry,
  type PaymentState,
  type Resolution,
  type TimerAction,
  type TransitionPlan,
  applyTransition,
  checkTransition,
  clockAdvanceRefusal,
  creationEntry,
  dueTimer,
  isTerminal,
  pendingTimer,
  planMovement,
  planTransition,
  TIMER_REASONS,
  TIMER_SUMMARIES,
  timerDelayMs,
} from '../domain/payment';
import { details } from '../domain/paymentSummary';
import { NextDeadlineKey, PaymentStatusKey } from '../domain/searchAttributes';
import { continuedRetry } from '../webhooks/retryPolicy';
import { deliveryActivityOptions, webhookDeliveryWorkflow } from './webhookDelivery';

export interface PaymentWorkflowInput {
  payment: PaymentState;
  /** API key id or user id that created the payment. */
  actor: string;
  requestId?: string;
  /**
   * A run started by `npm run repair` after an operator's terminate or reset: the payment as the
   * read model and ledger hold it, its history, and when it entered pending_release (ms). Its
   * creation is not published again (docs/operations.md).
   */
  resumed?: { history: HistoryEntry[]; pendingReleaseSince: number | null };
}

/** What the `transition` update and signal carry: the action and its arguments, who asks and the request. */
export interface TransitionMessage {
  action: ClientAction;
  resolution?: Resolution;
  /** A partial refund's amount, or a split's refund_amount: minor units as decimal text. */
  amountMinor?: string;
  reason?: string | null;
  actor: string;
  requestId?: string;
}

/** What a transition update answers: the payment and the history entry the transition wrote. */
export interface TransitionOutcome {
  payment: PaymentState;
  entry: HistoryEntry;
}

/** A client's request, as one of the per-action updates carries it (the action is the update's name). */
export type ActionRequest = Omit<TransitionMessage, 'action'>;

/**
 * The validated, synchronous way in, one Workflow Update per action (`deposit`, `refund`, …), so
 * that the history in the Temporal UI reads as the payment's story. The caller gets the new payment
 * or a refusal.
 */
export const actionUpdate = (action: ClientAction) => defineUpdate<TransitionOutcome, [ActionRequest]>(action);
/**
 * The one update every action used before the per-action updates; kept so that running payments
 * keep working. It answers a `TransitionOutcome`; the bare payment is in answers recorded before
 * the `side-effects-as-activities` patch only.
 */
export const transitionUpdate = defineUpdate<TransitionOutcome | PaymentState, [TransitionMessage]>('transition');
/** The same transitions, fire-and-forget (an illegal one is logged and ignored). */
export const transitionSignal = defineSignal<[TransitionMessage]>('transition');
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

/**
 * Version marker: a finished payment's run closes once its read model and ledger are written,
 * handing deliveries still being retried to workflows of their own (docs/operations.md), and it
 * keeps the `NextDeadline` search attribute. Runs recorded before it waited for every delivery.
 */
export const CLOSE_WHEN_FINISHED = 'close-when-finished';

/**
 * Version marker: one activity per transition on the happy path. The publication writes the read
 * model, ledger and trail and makes each delivery's first attempt inline; only deliveries whose first
 * attempt failed get delivery activities, continuing the same series (docs/webhooks.md). Runs
 * recorded before it replay projection and delivery activities.
 */
export const FIRST_DELIVERY_INLINE = 'first-delivery-inline';

/** How long a finished payment waits for its last deliveries before handing them over, if the plan does not say. */
const DEFAULT_HANDOFF_AFTER_MS = 30_000;

// Projection and delivery planning in one transaction. An ordinary activity: it is scheduled by
// the workflow task that made the transition durable, so the read model never runs ahead of the
// workflow. Database outages are retried for hours; data PostgreSQL refuses is not retryable.
const PROJECTION_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: {
    initialInterval: '200 ms',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 500,
    nonRetryableErrorTypes: ['ProjectionRefused'],
  },
};

// The publication (FIRST_DELIVERY_INLINE): the projection, then each delivery's first attempt inline,
// whose HTTP time-out is WEBHOOK_TIMEOUT up to INLINE_ATTEMPT_MAX_TIMEOUT_MS (30 s); the rest is margin.
const PUBLICATION_OPTIONS: ActivityOptions = { ...PROJECTION_OPTIONS, startToCloseTimeout: '45 seconds' };

// Rare path: make a projection that failed for good visible (metric and error log).
const { reportProjectionFailure } = proxyLocalActivities<Activities>({ startToCloseTimeout: '5 seconds' });
// The path before SIDE_EFFECTS_AS_ACTIVITIES, kept so that runs recorded with it replay.
const { recordTransition, planWebhookDeliveries } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '100 ms', backoffCoefficient: 2, maximumInterval: '5 seconds' },
});

/** The payment's logic; the workflow function below only wires messages and timers to it. */
class Payment {
  state: PaymentState;
  readonly history: HistoryEntry[];
  pendingReleaseSince: number | null = null;
  /** How far a test clock moved this payment's time forward (ms); 0 for every live payment. */
  clockOffsetMs = 0;
  /** Side effects still running (projection, then deliveries); before CLOSE_WHEN_FINISHED the run waited for all. */
  private readonly sideEffects: Promise<unknown>[] = [];
  /** Projections (read model and ledger) still running: a finished run waits for these. */
  private readonly projections: Promise<unknown>[] = [];
  /** Deliveries in progress, by delivery id, each in a scope the hand-over can cancel. */
  private readonly deliveries = new Map<string, { scope: CancellationScope; target: DeliveryTarget; plan: DeliveryPlan }>();
  /** Deliveries whose retries were cut short by the hand-over, to continue in workflows of their own. */
  private readonly handedOver: { target: DeliveryTarget; plan: DeliveryPlan }[] = [];
  private handoffAfterMs = DEFAULT_HANDOFF_AFTER_MS;
  private handingOver = false;

  constructor(private readonly input: PaymentWorkflowInput) {
    this.state = input.payment;
    this.history = input.resumed ? [...input.resumed.history] : [creationEntry(input.payment, input.actor)];
    if (input.resumed) this.pendingReleaseSince = input.resumed.pendingReleaseSince;
    setCurrentDetails(details(this.state));
  }

  /** The plan of the transition a client's request may take now, or a failure naming the current status or the field. */
  transitionFor(req: TransitionMessage): Extract<TransitionPlan, { ok: true }> {
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
    const refusal = clockAdvanceRefusal(this.state.livemode, seconds);
    if (refusal) throw ApplicationFailure.nonRetryable(refusal.message, refusal.type);
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
    if (patched(CLOSE_WHEN_FINISHED)) {
      upsertSearchAttributes([
        { key: PaymentStatusKey, value: next.status },
        { key: NextDeadlineKey, value: this.nextDeadline() },
      ]);
    } else {
      upsertSearchAttributes([{ key: PaymentStatusKey, value: next.status }]);
    }
    setCurrentDetails(details(next));
    log.info('payment transition', { request_id: requestId, action: entry.action, from: entry.from, to: entry.to, version: next.version });
    return { payment: next, entry };
  }

  /**
   * The pending deposit deadline or auto-release, in real time (a test clock's offset taken off),
   * for the `NextDeadline` search attribute; null when none is pending.
   */
  nextDeadline(): Date | null {
    const timer = pendingTimer(this.state, this.pendingReleaseSince);
    return timer ? new Date(timer.dueAt - this.clockOffsetMs) : null;
  }

  /** The creation's side effects, then every later transition's through `publish`. A repaired run's creation was published by the first. */
  async start(): Promise<void> {
    if (this.input.resumed) return;
    const created = { payment: this.input.payment, entry: this.history[0] };
    if (patched(SIDE_EFFECTS_AS_ACTIVITIES)) this.publish(created, this.input.requestId);
    else await this.publishInline(created, this.input.requestId);
  }

  /** A client's transition (update or signal): state first, side effects after, never awaited. */
  async transition(req: TransitionMessage, plan: Extract<TransitionPlan, { ok: true }>): Promise<TransitionOutcome> {
    const outcome = this.apply(plan, req.actor, req.reason ?? null, req.requestId);
    if (patched(SIDE_EFFECTS_AS_ACTIVITIES)) this.publish(outcome, req.requestId);
    // Runs recorded before the patch answered the bare payment here; an answer is no command, so
    // replaying them is unaffected, and every update's answer is now the outcome.
    else await this.publishInline(outcome, req.requestId);
    return outcome;
  }

  /** A timer's transition; re-checked, since a message may have moved the payment meanwhile. */
  async fire(action: TimerAction): Promise<TransitionOutcome | undefined> {
    const check = checkTransition(this.state.status, action);
    if (!check.ok) return undefined;
    const plan = planMovement(this.state, check.transition);
    if (!plan.ok) return undefined;
    const outcome = this.apply(plan, 'system', TIMER_REASONS[action]);
    if (patched(SIDE_EFFECTS_AS_ACTIVITIES)) this.publish(outcome);
    else await this.publishInline(outcome);
    return outcome;
  }

  /** Read model and webhooks in the background: a slow receiver never delays a transition. */
  private publish({ payment, entry }: TransitionOutcome, requestId?: string): void {
    let projected!: () => void;
    this.projections.push(new Promise<void>((resolve) => (projected = resolve)));
    this.sideEffects.push(this.project(payment, entry, requestId, projected).finally(projected));
  }

  /** `projected` is called once the read model and ledger are written (or failed for good), before the deliveries. */
  private async project(payment: PaymentState, entry: HistoryEntry, requestId: string | undefined, projected: () => void): Promise<void> {
    const inline = patched(FIRST_DELIVERY_INLINE);
    // Named for the Temporal UI: which step, to which status, at which version.
    const { projectTransition, publishTransition } = proxyActivities<Activities>({
      ...(inline ? PUBLICATION_OPTIONS : PROJECTION_OPTIONS),
      summary: `${inline ? 'publish' : 'project'} ${entry.action} → ${entry.to} (v${entry.seq})`,
    });
    let plan: DeliveryPlan;
    try {
      plan = await (inline ? publishTransition : projectTransition)(payment, entry, requestId);
    } catch (err) {
      // Bounded: the payment's timers and later transitions go on; operators are alerted.
      const message = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
      await reportProjectionFailure(payment.id, payment.version, message);
      return;
    }
    projected();
    if (plan.handoffAfterMs !== undefined) this.handoffAfterMs = plan.handoffAfterMs;
    // Plans made before deliveries named their receivers carry ids only.
    const targets: DeliveryTarget[] = plan.deliveries ?? plan.deliveryIds.map((id) => ({ id }));
    // A delivery whose inline first attempt ended needs nothing more.
    const open = targets.filter((target) => plan.firstAttempts?.[target.id] !== 'done');
    await Promise.all(open.map((target) => this.deliver(target, plan, entry.event, plan.firstAttempts?.[target.id] === 'retry')));
  }

  /**
   * One delivery on the webhook task queue, under Temporal's retry policy from the plan; after an
   * inline first attempt that failed, the rest of that series (its next interval, its attempts left).
   */
  private async deliver(target: DeliveryTarget, plan: DeliveryPlan, event: string, afterFirstAttempt = false): Promise<void> {
    const { retry, taskQueue } = plan;
    const rest = afterFirstAttempt ? continuedRetry(retry, 1) : { waitMs: 0, retry };
    if (!rest) return;
    const { deliverWebhook } = proxyActivities<Activities>({
      ...deliveryActivityOptions(rest.retry),
      taskQueue,
      activityId: target.id,
      summary: target.url ? `deliver ${event} → ${target.url} (${target.webhookId})` : target.id,
      // A hand-over waits until no attempt is in flight, so the next series never overlaps it.
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    });
    const scope = new CancellationScope();
    this.deliveries.set(target.id, { scope, target, plan });
    try {
      await scope.run(async () => {
        if (!afterFirstAttempt) return deliverWebhook(target.id, retry.timeoutMs, retry.maximumAttempts);
        await sleep(rest.waitMs);
        return deliverWebhook(target.id, rest.retry.timeoutMs, rest.retry.maximumAttempts, 1, true);
      });
    } catch (err) {
      // Cut short by the hand-over: continued elsewhere, whatever the last attempt reported (a
      // failure that raced the cancellation too; the continuation skips a delivery already ended).
      if (isCancellation(err) || this.handingOver) this.handedOver.push({ target, plan });
      // The delivery log holds every attempt; the payment itself is not affected.
      else log.warn('webhook delivery failed after its retries', { deliveryId: target.id, error: String(err) });
    } finally {
      this.deliveries.delete(target.id);
    }
  }

  /**
   * The payment is finished: once its read model and ledger are written the run may close. Its
   * deliveries get a short while to finish; those still being retried then continue in workflows of
   * their own, with the same delivery id and their attempt count carried over.
   */
  private async finish(): Promise<void> {
    await Promise.all(this.projections);
    if (this.deliveries.size === 0) return;
    if (await condition(() => this.deliveries.size === 0, this.handoffAfterMs)) return;
    this.handingOver = true;
    for (const d of this.deliveries.values()) d.scope.cancel();
    await condition(() => this.deliveries.size === 0);
    for (const { target, plan } of this.handedOver) {
      await startChild(webhookDeliveryWorkflow, {
        // On this payment's task queue, as resends run: the webhook queue's workers run activities only.
        workflowId: `${target.id}-continued`,
        args: [{ deliveryId: target.id, retry: plan.retry, continued: true }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        staticSummary: `continue ${target.id} for ${this.state.id}`,
      });
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
      const timer = pendingTimer(this.state, this.pendingReleaseSince);
      if (timer) {
        const dueMs = timerDelayMs(timer, this.now());
        if (!(await condition(moved, dueMs, { summary: TIMER_SUMMARIES[timer.action] }))) await this.fire(timer.action);
      } else {
        await condition(moved);
      }
    }
    // Let in-flight handlers, the read model and the ledger finish before the run closes.
    await condition(allHandlersFinished);
    if (patched(CLOSE_WHEN_FINISHED)) await this.finish();
    else await Promise.all(this.sideEffects);
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
  for (const action of CLIENT_ACTIONS) {
    setHandler(
      actionUpdate(action),
      async (req) => {
        // Awaited here, as before, so that the answer keeps its place among the commands (replay).
        const outcome = await payment.transition({ ...req, action }, payment.transitionFor({ ...req, action }));
        return outcome;
      },
      { validator: (req) => void payment.transitionFor({ ...req, action }) },
    );
  }
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
