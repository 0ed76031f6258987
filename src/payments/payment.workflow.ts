/**
 * The payment workflow, one run per payment: the state machine's messages (per-action updates, and
 * the `transition` signal, defined in ./payment.messages.ts) and its timers; a refusal's failure is
 * ./paymentFailures.workflow.ts's. Its side effects (the publication of each transition, and the
 * start of each delivery's workflow by that publication) are src/webhooks/webhookDelivery.workflow.ts's. The payment's one writer: an
 * update answers once the publication of the step it caused is committed (docs/architecture.md,
 * "One writer per aggregate").
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  log,
  patched,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import {
  CLIENT_ACTIONS,
  type ClientAction,
  DISPUTE_ACTIONS,
  type DisputeAction,
  type HistoryEntry,
  MILESTONE_ACTIONS,
  type MilestoneAction,
  type PaymentState,
  type TimerAction,
} from './paymentTypes.rules';
import { creationEntry, isTerminal } from './payment.rules';
import {
  clockAdvanceRefusal,
  nextDeadlineOf,
  pendingTimer,
  pendingTimers,
  TIMER_REASONS,
  TIMER_SUMMARIES,
  timerDelayMs,
} from './paymentTimers.rules';
import { type PlannedStep, applyTransition, planTransition } from './paymentPlan.rules';
import { INVALID_ARGUMENT, INVALID_TRANSITION } from '../platform/failures.rules';
import { openDispute, planDispute, planDisputeDefault } from './disputes.rules';
import { details } from './paymentSummary.rules';
import { NextDeadlineKey, PaymentStatusKey } from '../platform/searchAttributes.rules';
import { isReasonHash } from './reasonHash.rules';
import { withBigintMoney } from '../ledger/moneyFields.rules';
import { DurableTimers } from './durableTimers.workflow';
import { Publications } from '../webhooks/webhookDelivery.workflow';
import {
  type DisputeMessage,
  type PaymentWorkflowInput,
  type TransitionMessage,
  type TransitionOutcome,
  actionUpdate,
  advanceClockUpdate,
  createdUpdate,
  disputeUpdate,
  getHistoryQuery,
  getPaymentQuery,
  milestoneUpdate,
  receiveFundsUpdate,
  transitionSignal,
  type FundsOutcome,
} from './payment.messages';
import { type FundsMessage, planFunds } from './bankFunding.rules';
import { disputeFailure, transitionFailure } from './paymentFailures.workflow';

/**
 * The patch that made a dispute a process: a dispute opened with it has a record and, opened by a
 * party, the respondent's durable timer; one recorded before it stays a status (docs/architecture.md).
 */
export const DISPUTES_PATCH = 'disputes';

/** The payment's logic; the workflow function below only wires messages and timers to it. */
class Payment {
  state: PaymentState;
  readonly history: HistoryEntry[];
  /** How far a test clock moved this payment's time forward (ms); 0 for every live payment. */
  clockOffsetMs = 0;
  private readonly publications: Publications;
  /** The payment as created: money as bigint also from a history recorded when payloads carried it as text (docs/money.md). */
  private readonly created: PaymentState;
  /** The creation's publication, once `start` has scheduled it (a repaired run's was the first run's). */
  private creation?: Promise<void>;

  constructor(private readonly input: PaymentWorkflowInput) {
    this.created = withBigintMoney(input.payment);
    this.state = this.created;
    this.publications = new Publications();
    this.history = input.resumed ? withBigintMoney(input.resumed.history) : [creationEntry(this.state, input.actor)];
    setCurrentDetails(details(this.state, this.history.at(-1)));
  }

  /** The plan of the transition a client's request may take now, or a failure naming the current status or the field. */
  transitionFor(req: TransitionMessage): PlannedStep {
    const { amountMinor } = withBigintMoney(req);
    const plan = planTransition(
      this.state,
      { action: req.action, resolution: req.resolution, amountMinor, milestoneId: req.milestoneId },
      this.now(),
    );
    if (plan.ok) return plan;
    throw transitionFailure(plan);
  }

  /** The plan of a party's dispute action, or a failure naming the dispute's status (or the payment's, or the field). */
  disputeStepFor(action: DisputeAction, req: DisputeMessage): PlannedStep {
    // Money as bigint also in an update recorded when payloads carried it as text, or typed in the Temporal UI.
    const plan = planDispute(this.state, { ...withBigintMoney(req), action }, this.now());
    if (plan.ok) return plan;
    throw disputeFailure(plan);
  }

  /**
   * A party's dispute action: state first, before any await, then its publication, which it answers
   * once committed. Its text's hash is the entry's reason, so the trail holds only that.
   */
  async disputeStep(req: DisputeMessage, plan: PlannedStep): Promise<TransitionOutcome> {
    const outcome = this.apply(plan, req.actor, req.hash ?? null, req.requestId);
    await this.publications.publish({ ...outcome, requestId: req.requestId });
    return outcome;
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

  /**
   * Move the clock; every timer now due fires at once (the run loop re-arms the others), and the
   * answer, the last one's step, comes once every step it fired is published.
   */
  async advance(seconds: number): Promise<{ payment: PaymentState; entry?: HistoryEntry }> {
    this.clockOffsetMs += seconds * 1000;
    const { last, published } = this.fireDue();
    await Promise.all(published);
    return last ?? { payment: this.state };
  }

  /** The payment as its creation's publication committed it, or as it is now for a later caller (a create's retry). */
  async createdAndPublished(): Promise<PaymentState> {
    // Handlers may run before the run's first step has scheduled the creation: wait for it, then for its commit.
    await condition(() => this.creation !== undefined);
    await this.creation;
    return this.state;
  }

  /** Change state synchronously (so the next validator sees it); side effects come after. */
  apply(plan: PlannedStep, actor: string, reason: string | null, requestId?: string): TransitionOutcome {
    const { state: next, entry } = applyTransition(this.state, plan, { actor, reason, at: new Date().toISOString() });
    this.state = next;
    this.history.push(entry);
    upsertSearchAttributes([
      { key: PaymentStatusKey, value: next.status },
      { key: NextDeadlineKey, value: this.nextDeadline() },
    ]);
    setCurrentDetails(details(next, entry));
    log.info('payment transition', { request_id: requestId, action: entry.action, from: entry.from, to: entry.to, version: next.version });
    return { payment: next, entry };
  }

  /**
   * The pending deposit deadline or auto-release, in real time (a test clock's offset taken off),
   * for the `NextDeadline` search attribute; null when none is pending.
   */
  nextDeadline(): Date | null {
    const due = nextDeadlineOf(this.state);
    return due && new Date(due.getTime() - this.clockOffsetMs);
  }

  /** The creation's side effects, then every later transition's through `publish`. A repaired run's creation was published by the first. */
  start(): void {
    this.creation = this.input.resumed
      ? Promise.resolve()
      : this.publications.publish({ payment: this.created, entry: this.history[0], requestId: this.input.requestId }, 'input');
  }

  /** What the payment took of each credit the bank booked for it, by credit id: a credit again changes nothing. */
  private readonly credits = new Map<string, bigint>();

  /** Refused unless the payment can take the credit now (or took it before). */
  validateFunds(msg: FundsMessage): void {
    if (this.credits.has(msg.creditId)) return;
    const plan = planFunds(this.state, withBigintMoney(msg), this.now());
    if (!plan.ok)
      throw ApplicationFailure.create({
        message: plan.message,
        type: INVALID_TRANSITION,
        nonRetryable: true,
        details: [this.state.status, []],
      });
  }

  /**
   * A credit booked at the bank with the payment's reference (docs/bank.md): state first (what it
   * received, and the step: partially funded or deposited), then its publication; the update
   * answers once that is committed (docs/architecture.md, "One writer per aggregate").
   */
  async receiveFunds(msg: FundsMessage): Promise<FundsOutcome> {
    const taken = this.credits.get(msg.creditId);
    if (taken !== undefined) return { payment: this.state, appliedMinor: taken };
    const plan = planFunds(this.state, withBigintMoney(msg), this.now());
    if (!plan.ok)
      throw ApplicationFailure.create({
        message: plan.message,
        type: INVALID_TRANSITION,
        nonRetryable: true,
        details: [this.state.status, []],
      });
    const { payment, entry } = this.apply(plan.step, 'bank', null);
    this.state = { ...payment, amountReceivedMinor: plan.received };
    entry.credit = plan.credit;
    this.credits.set(msg.creditId, plan.credit.appliedMinor);
    const outcome = { payment: this.state, entry, appliedMinor: plan.credit.appliedMinor };
    await this.publications.publish({ payment: this.state, entry });
    return outcome;
  }

  /**
   * A client's transition (update or signal): state first, before any await (so the next validator
   * sees it, as in samples-typescript's safe-message-handlers), then its publication; an update
   * answers once that is committed.
   */
  async transition(req: TransitionMessage, plan: PlannedStep): Promise<TransitionOutcome> {
    // Only a dispute opened after the patch has a record: one replayed from before stays a status.
    if (req.action === 'dispute' && patched(DISPUTES_PATCH)) {
      const opening = req.dispute ?? {
        id: `dp_${uuid4().replaceAll('-', '').slice(0, 26).toUpperCase()}`,
        openedBy: 'platform',
        respondWithinSeconds: 0,
      };
      plan = openDispute(this.state, plan, { ...opening, reason: req.reason ?? null }, this.now());
    }
    const outcome = this.apply(plan, req.actor, req.reason ?? null, req.requestId);
    await this.publications.publish({ ...outcome, requestId: req.requestId });
    return outcome;
  }

  /**
   * A timer's transition; re-checked, since a message may have moved the payment meanwhile. An
   * auto-release is its milestone's; the history names the milestone on a payment with milestones.
   * With its publication, which a test clock's move awaits and the run loop does not.
   */
  fire(timer: {
    action: TimerAction;
    milestoneId?: string;
    disputeId?: string;
  }): { outcome: TransitionOutcome; published: Promise<void> } | undefined {
    const milestoneId = this.state.staged ? timer.milestoneId : undefined;
    const plan =
      timer.action === 'dispute_default'
        ? planDisputeDefault(this.state, timer.disputeId!, this.now())
        : planTransition(this.state, { action: timer.action, milestoneId }, this.now(), false);
    if (!plan?.ok) return undefined;
    const outcome = this.apply(plan, 'system', TIMER_REASONS[timer.action]);
    return { outcome, published: this.publications.publish(outcome) };
  }

  /**
   * Every timer due on the payment's clock, earliest first, in this one task: several milestones'
   * auto-releases may come due together. The last step's outcome, if any fired, and every step's publication.
   */
  fireDue(): { last?: TransitionOutcome; published: Promise<void>[] } {
    let last: TransitionOutcome | undefined;
    const published: Promise<void>[] = [];
    for (let timer = pendingTimer(this.state); timer && this.now() >= timer.dueAt; timer = pendingTimer(this.state)) {
      const fired = this.fire(timer);
      if (!fired) break;
      last = fired.outcome;
      published.push(fired.published);
    }
    return { last, published };
  }

  /**
   * Waits through the payment's life. One durable timer per pending timer: the deposit deadline, and
   * the auto-release of each approved milestone that has one, each named in the Temporal UI. A
   * timer whose milestone moves on is cancelled; a test clock's move re-arms them all.
   */
  async run(): Promise<PaymentState> {
    this.start();
    const timers = new DurableTimers();
    let offset = this.clockOffsetMs;
    while (!isTerminal(this.state.status)) {
      const wanted = pendingTimers(this.state).map((t) => ({
        key: `${t.disputeId ?? t.milestoneId ?? ''}@${t.dueAt}`,
        delayMs: timerDelayMs(t, this.now()),
        // Named in the Temporal UI: a respondent's deadline by its dispute.
        summary: t.disputeId
          ? `${TIMER_SUMMARIES[t.action]} ${t.disputeId}`
          : this.state.staged && t.milestoneId
            ? `${TIMER_SUMMARIES[t.action]} ${t.milestoneId}`
            : TIMER_SUMMARIES[t.action],
      }));
      timers.sync(wanted, offset !== this.clockOffsetMs);
      offset = this.clockOffsetMs;
      const version = this.state.version;
      // A step (message or timer) or a test clock's move changes which timers are pending.
      await condition(() => timers.fired || this.state.version !== version || this.clockOffsetMs !== offset);
      if (timers.takeFired()) this.fireDue();
    }
    timers.cancelAll();
    // Let in-flight handlers, the read model and the ledger finish before the run closes.
    await condition(allHandlersFinished);
    await this.publications.finish();
    log.info('payment reached a terminal status', { status: this.state.status, workflowId: workflowInfo().workflowId });
    return this.state;
  }
}

const isMilestoneAction = (action: ClientAction): action is MilestoneAction => (MILESTONE_ACTIONS as readonly string[]).includes(action);

export async function paymentWorkflow(input: PaymentWorkflowInput): Promise<PaymentState> {
  const payment = new Payment(input);
  setHandler(getPaymentQuery, () => payment.state);
  setHandler(getHistoryQuery, () => payment.history);
  // The create's answer (an update-with-start): the payment once its creation is committed.
  setHandler(createdUpdate, () => payment.createdAndPublished());
  for (const action of CLIENT_ACTIONS) {
    setHandler(
      actionUpdate(action),
      // Validated again: an update accepted earlier in this task may have moved the payment.
      (req) => payment.transition({ ...req, action }, payment.transitionFor({ ...req, action })),
      {
        validator: (req) => {
          // A milestone's action is its own update (milestone_…), never this one with a milestone named.
          if (req?.milestoneId !== undefined && isMilestoneAction(action)) {
            throw ApplicationFailure.nonRetryable(`${action} names no milestone: a milestone's is milestone_${action}`, INVALID_ARGUMENT);
          }
          payment.transitionFor({ ...req, action });
        },
      },
    );
  }
  for (const action of MILESTONE_ACTIONS) {
    setHandler(milestoneUpdate(action), (req) => payment.transition({ ...req, action }, payment.transitionFor({ ...req, action })), {
      // Without its milestone the request would be the payment's own action, on every milestone.
      validator: (req) => {
        if (typeof req?.milestoneId !== 'string') {
          throw ApplicationFailure.nonRetryable(`milestone_${action} names its milestone: milestoneId is required`, INVALID_ARGUMENT);
        }
        payment.transitionFor({ ...req, action });
      },
    });
  }
  for (const action of DISPUTE_ACTIONS) {
    setHandler(disputeUpdate(action), (req) => payment.disputeStep(req, payment.disputeStepFor(action, req)), {
      validator: (req) => {
        payment.disputeStepFor(action, req);
      },
    });
  }
  setHandler(receiveFundsUpdate, (msg) => payment.receiveFunds(msg), { validator: (msg) => payment.validateFunds(msg) });
  setHandler(advanceClockUpdate, ({ seconds }) => payment.advance(seconds), {
    validator: ({ seconds }) => payment.validateAdvance(seconds),
  });
  setHandler(transitionSignal, (signalled) => {
    // A signal is anyone's Temporal client: a reason that is not the API's keyed hash is not carried on.
    const req = signalled.reason && !isReasonHash(signalled.reason) ? { ...signalled, reason: null } : signalled;
    let plan: PlannedStep;
    try {
      plan = payment.transitionFor(req);
    } catch (err) {
      log.warn('transition signal refused', { action: req.action, status: payment.state.status, error: String(err) });
      return;
    }
    // A signal answers no one: its publication runs on, and the run waits for it before it closes.
    void payment.transition(req, plan);
  });
  return payment.run();
}
