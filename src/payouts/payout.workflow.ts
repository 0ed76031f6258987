/**
 * The payout workflow, one run per payout (workflow id = payout id; docs/payouts.md): its status,
 * the cancel a client asks for, and what moves it on — in test mode the simulated bank on the
 * payout's own clock, in live mode the bank's answers. Each step is applied to the workflow's state
 * first, then written (row, ledger entry, deliveries) by an activity of its own, in order.
 */
import {
  type ActivityOptions,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  defineQuery,
  defineUpdate,
  log,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  uuid4,
} from '@temporalio/workflow';
import type { Activities } from '../platform/activities';
import { CUSTODY_ACCOUNT_MISSING, INVALID_PAYOUT_TRANSITION, LIVE_PAYMENT, PAYOUT_STEP_REFUSED } from '../platform/failures.rules';
import { type PayoutAction, type PayoutFailureCode, PAYOUT_RETURN_WINDOW, checkPayoutTransition, isTerminalPayout } from './payout.rules';
import { nextSimulatedStep } from './simulatedBank.rules';
import { type PayoutStoryState, payoutDetails, payoutStepSummary } from './payoutSummary.rules';
import { clockAdvanceRefusal } from '../payments/paymentTimers.rules';
import { withBigintMoney } from '../ledger/moneyFields.rules';
import { DurableTimers } from '../payments/durableTimers.workflow';

/** What the workflow knows of its payout: ids, amounts and the account's last four digits, nothing personal. */
export interface PayoutRunState extends PayoutStoryState {
  id: string;
  accountId: string;
  livemode: boolean;
  recipientId: string;
  amountMinor: bigint;
  createdAtMs: number;
  version: number;
}

export interface PayoutWorkflowInput {
  payout: PayoutRunState;
}

/** A bank's answer about a live payout (bankFileRead.format.ts): the step it takes and, for a failure or a return, why. */
export interface BankOutcome {
  action: Exclude<PayoutAction, 'cancel'>;
  failureCode?: PayoutFailureCode;
}

export const cancelPayoutUpdate = defineUpdate<PayoutRunState, [{ actor: string; requestId?: string }]>('cancel');
/** Test mode: move the payout's clock forward, so that the simulated bank's due steps are taken now. */
export const advancePayoutClockUpdate = defineUpdate<PayoutRunState, [{ seconds: number }]>('advanceClock');
/** Live mode: what the bank said (its file written, a payment booked, a rejection, a return). */
export const bankOutcomeUpdate = defineUpdate<PayoutRunState, [BankOutcome]>('bankOutcome');
/**
 * Live mode: the batch puts the payout in the credit transfer file `messageId` before it writes it
 * (docs/bank.md, "The outbox"); from then on the payout cannot be canceled, and it is `in_transit`
 * (the `send` step) only once the file is durably written.
 */
export const enterFileUpdate = defineUpdate<PayoutRunState, [{ messageId: string }]>('enterFile');
export const getPayoutQuery = defineQuery<PayoutRunState>('getPayout');

/**
 * How long a paid live payout's run waits for a return before it closes (src/payouts/payout.rules.ts). A
 * return reported later is refused and listed for an operator.
 */
export { PAYOUT_RETURN_WINDOW };

// A step's write must happen, whatever the outage: retried without end (no maximumAttempts), a minute apart at most;
// only a step the row refuses (workflow and read model disagree) stops, and fails the run for an operator.
const STEP_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '500 ms',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [PAYOUT_STEP_REFUSED],
  },
};

const transitionRefusal = (status: string, message: string) =>
  ApplicationFailure.create({ message, type: INVALID_PAYOUT_TRANSITION, nonRetryable: true, details: [status] });

/** The payout's logic; the workflow function below only wires messages to it. */
class Payout {
  state: PayoutRunState;
  /** How far a test clock moved this payout's time forward (ms); 0 for every live payout. */
  clockOffsetMs = 0;
  /** Live mode: the credit transfer file (its MsgId) the payout is in, once a batch put it there. */
  fileMessageId: string | null = null;
  /** The steps' writes, in the order the steps were taken: the creation's deliveries first. */
  private writes: Promise<unknown>;

  constructor(input: PayoutWorkflowInput) {
    // Money as bigint also from a history recorded when payloads carried it as text (docs/money.md).
    this.state = withBigintMoney(input.payout);
    setCurrentDetails(payoutDetails(this.state));
    const { publishPayoutCreated } = proxyActivities<Activities>({ ...STEP_OPTIONS, summary: payoutStepSummary(this.state, 'create') });
    this.writes = publishPayoutCreated(this.state.id);
  }

  /** The payout's time: the workflow's clock, moved forward by any test clock. */
  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  /** Refuse an action its status does not allow, naming the status. */
  validate(action: PayoutAction): void {
    if (action === 'cancel' && this.fileMessageId !== null) {
      throw transitionRefusal(
        this.state.status,
        `cannot cancel a payout that is in the credit transfer file ${this.fileMessageId}, written for the bank`,
      );
    }
    const check = checkPayoutTransition(this.state.status, action);
    if (!check.ok) throw transitionRefusal(this.state.status, check.message);
  }

  /**
   * Take a step: the state changes now (so the next validator sees it), its write is queued after
   * the ones before. Undefined when the status does not allow it.
   */
  take(action: PayoutAction, failureCode?: PayoutFailureCode): Promise<unknown> | undefined {
    const check = checkPayoutTransition(this.state.status, action);
    if (!check.ok) return undefined;
    const to = check.transition.to;
    const failure = to === 'failed' || to === 'returned' ? (failureCode ?? 'could_not_process') : null;
    this.state = { ...this.state, status: to, failureCode: failure, version: this.state.version + 1 };
    setCurrentDetails(payoutDetails(this.state));
    log.info('payout step', { action, to, version: this.state.version });
    // Named for the Temporal UI: the step, the status it led to, the money it moved.
    const { payoutStep } = proxyActivities<Activities>({ ...STEP_OPTIONS, summary: payoutStepSummary(this.state, action) });
    const input = { payoutId: this.state.id, action, failureCode: failure, at: Date.now() };
    this.writes = this.writes.then(() => payoutStep(input));
    return this.writes;
  }

  /** The simulated bank's steps due on the payout's clock, in order; the last one's write, if any was taken. */
  takeDue(): Promise<unknown> | undefined {
    let last: Promise<unknown> | undefined;
    const elapsed = () => (this.now() - this.state.createdAtMs) / 1000;
    for (let next = nextSimulatedStep(this.state.last4, this.state.status); next && elapsed() >= next.afterSeconds;) {
      last = this.take(next.action, next.failureCode);
      if (!last) break;
      next = nextSimulatedStep(this.state.last4, this.state.status);
    }
    return last;
  }

  async cancel(): Promise<PayoutRunState> {
    const written = this.take('cancel');
    await written;
    return this.state;
  }

  validateAdvance(seconds: number): void {
    const refusal = clockAdvanceRefusal(this.state.livemode, seconds);
    if (refusal) throw ApplicationFailure.nonRetryable(refusal.message.replace('payments', 'payouts'), refusal.type);
  }

  async advance(seconds: number): Promise<PayoutRunState> {
    this.clockOffsetMs += seconds * 1000;
    // Its writes are awaited below, with the clock's record queued after them.
    void this.takeDue();
    const { recordPayoutClock } = proxyActivities<Activities>({ ...STEP_OPTIONS, summary: `test clock +${seconds}s` });
    const offsetSeconds = this.clockOffsetMs / 1000;
    this.writes = this.writes.then(() => recordPayoutClock({ payoutId: this.state.id, offsetSeconds }));
    await this.writes;
    return this.state;
  }

  validateEnterFile({ messageId }: { messageId: string }): void {
    if (!this.state.livemode) throw ApplicationFailure.nonRetryable('a test payout is paid by the simulated bank', LIVE_PAYMENT);
    if (this.state.status !== 'pending' && this.state.status !== 'in_transit') {
      throw transitionRefusal(this.state.status, `a payout whose status is ${this.state.status} goes in no file`);
    }
    if (this.fileMessageId !== null && this.fileMessageId !== messageId) {
      throw transitionRefusal(this.state.status, `the payout is in the credit transfer file ${this.fileMessageId} already`);
    }
  }

  enterFile({ messageId }: { messageId: string }): PayoutRunState {
    this.fileMessageId = messageId;
    return this.state;
  }

  validateBankOutcome(outcome: BankOutcome): void {
    if (!this.state.livemode) throw ApplicationFailure.nonRetryable('a test payout is paid by the simulated bank', LIVE_PAYMENT);
    this.validate(outcome.action);
  }

  async bankOutcome(outcome: BankOutcome): Promise<PayoutRunState> {
    await this.take(outcome.action, outcome.failureCode);
    return this.state;
  }

  /** Test mode: the simulated bank's story on the payout's clock, one named durable timer for its next step. */
  private async simulatedBank(): Promise<void> {
    const timers = new DurableTimers();
    let offset = this.clockOffsetMs;
    for (let next = nextSimulatedStep(this.state.last4, this.state.status); next;) {
      const dueAt = this.state.createdAtMs + next.afterSeconds * 1000;
      timers.sync(
        [
          {
            key: `${next.action}@${next.afterSeconds}`,
            delayMs: Math.max(1, dueAt - this.now()),
            summary: `simulated bank: ${next.action}`,
          },
        ],
        offset !== this.clockOffsetMs,
      );
      offset = this.clockOffsetMs;
      const version = this.state.version;
      // A step (the timer's, a cancel) or a test clock's move changes what comes next.
      await condition(() => timers.fired || this.state.version !== version || this.clockOffsetMs !== offset);
      // Its writes are awaited when the run closes.
      if (timers.takeFired()) void this.takeDue();
      next = nextSimulatedStep(this.state.last4, this.state.status);
    }
    timers.cancelAll();
  }

  /** Live mode: the bank's answers move it; a paid payout waits PAYOUT_RETURN_WINDOW for a return. */
  private async bank(): Promise<void> {
    while (!isTerminalPayout(this.state.status)) {
      if (this.state.status === 'paid') {
        if (!(await condition(() => this.state.status !== 'paid', PAYOUT_RETURN_WINDOW))) return;
      } else {
        await condition(() => isTerminalPayout(this.state.status) || this.state.status === 'paid');
      }
    }
  }

  async run(): Promise<PayoutRunState> {
    await (this.state.livemode ? this.bank() : this.simulatedBank());
    // Let in-flight handlers and every step's write finish before the run closes.
    await condition(allHandlersFinished);
    await this.writes;
    log.info('payout run closes', { status: this.state.status });
    return this.state;
  }
}

export async function payoutWorkflow(input: PayoutWorkflowInput): Promise<PayoutRunState> {
  const payout = new Payout(input);
  setHandler(getPayoutQuery, () => payout.state);
  setHandler(cancelPayoutUpdate, (_req) => payout.cancel(), { validator: (_req) => payout.validate('cancel') });
  setHandler(advancePayoutClockUpdate, ({ seconds }) => payout.advance(seconds), {
    validator: ({ seconds }) => payout.validateAdvance(seconds),
  });
  setHandler(enterFileUpdate, (input) => payout.enterFile(input), { validator: (input) => payout.validateEnterFile(input) });
  setHandler(bankOutcomeUpdate, (outcome) => payout.bankOutcome(outcome), {
    validator: (outcome) => payout.validateBankOutcome(outcome),
  });
  return payout.run();
}

/**
 * One batch of live payouts written as pain.001 files (docs/payouts.md, "Live mode"), started every
 * PAYOUT_BATCH_INTERVAL by a Temporal Schedule: SEPA credit transfers in one file, the others in
 * another (`files`, their MsgIds). Its MsgId and creation time are fixed here, in the workflow's
 * history, so the activity's every retry writes the same files under the same names.
 */
export async function payoutBatchWorkflow(): Promise<{ messageId: string; payouts: number; written: boolean; files: string[] }> {
  const { writePayoutBatch } = proxyActivities<Activities>({
    // Each payout's workflow takes its send step (an update each): bounded by PAYOUTS_PER_FILE.
    startToCloseTimeout: '10 minutes',
    // A worker that dies mid-batch: another takes the batch over after this, not after 10 minutes.
    heartbeatTimeout: '30 seconds',
    retry: {
      initialInterval: '5 seconds',
      backoffCoefficient: 2,
      maximumInterval: '5 minutes',
      nonRetryableErrorTypes: [CUSTODY_ACCOUNT_MISSING],
    },
    summary: 'write the pending live payouts as one pain.001 file',
  });
  // A MsgId of the SEPA character set within 35 characters: the bank refuses a second file with the same.
  const messageId = `B-${uuid4().replaceAll('-', '')}`;
  const outcome = await writePayoutBatch({ messageId, createdAtMs: Date.now() });
  return { messageId, ...outcome };
}
