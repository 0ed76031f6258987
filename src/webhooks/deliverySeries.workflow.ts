/**
 * A delivery's series (docs/webhooks.md, "One road"): the attempts every series takes — first,
 * retry, resend, recover, test — in the workflow named by the delivery's id on the webhooks task
 * queue (src/webhooks/webhookDelivery.workflow.ts, src/webhooks/deliverySeries.rules.ts).
 */
import {
  ActivityCancellationType,
  ActivityFailure,
  type ActivityOptions,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  log,
  proxyActivities,
  sleep,
} from '@temporalio/workflow';
import { RetryState } from '@temporalio/common';
import type { Activities, DeliveryOutcome, DeliveryRetry, SeriesInput } from '../platform/activities';
import { continuedRetry } from './retrySchedule';
import { FINAL_DELIVERY_FAILURES, WEBHOOK_DELIVERY_EXHAUSTED, WEBHOOK_ENDPOINT_BUSY } from '../platform/failures.rules';
import { DELIVERY_ACTIVITY_MARGIN_MS, endpointBusyDelayMs } from './deliverySeries.rules';

// A series that gave up without a final attempt frees its delivery.
const { endSeries } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumInterval: '10 seconds' },
});

/** How a delivery activity runs: the HTTP time-out plus a margin, under the WEBHOOK_* retry policy. */
export function deliveryActivityOptions(retry: DeliveryRetry): ActivityOptions {
  return {
    // The HTTP call aborts at timeoutMs; the margin covers the database writes around it.
    startToCloseTimeout: retry.timeoutMs + DELIVERY_ACTIVITY_MARGIN_MS,
    retry: {
      initialInterval: retry.initialIntervalMs,
      backoffCoefficient: retry.backoffCoefficient,
      maximumInterval: retry.maximumIntervalMs,
      maximumAttempts: retry.maximumAttempts,
      nonRetryableErrorTypes: FINAL_DELIVERY_FAILURES,
    },
  };
}

/** A series that ended without a success: the delivery log holds every attempt; the delivery is free for a resend. */
export async function gaveUp(deliveryId: string, series: string, err: unknown): Promise<void> {
  log.warn('webhook delivery series ended without a success', { deliveryId, series, error: String(err) });
  await endSeries({ deliveryId, series });
}

export interface RetryNow {
  /** The attempts the delivery log holds: what is left of the series' retries goes on after them. */
  logged: number;
  /** The caller saw the series' attempt in the retry policy's backoff (Temporal's pending activity); else it saw none. */
  backoff: boolean;
}

/**
 * How a series runs in its delivery's workflow, whose start options give its task queue, fairness
 * key and priority; each activity is named by its delivery (`<delivery id>`, then `<delivery id>.<n>`
 * after a wake or a full endpoint's turn-aways).
 */
export interface SeriesPlacement {
  /** The first attempt alone, then the rest of the series: a chain's next delivery waits for it. */
  firstAlone?: boolean;
  /** For the Temporal UI: the event and the configuration's id (never its URL, which may carry a token). */
  label: string;
}

/**
 * A delivery's series, the one road of every attempt (first, retry, resend, recover, test): one
 * activity under Temporal's retry policy (docs/webhooks.md, "Retries": initial 1 min, coefficient
 * 5, max interval 2 h, 5 attempts), so the attempt the Temporal UI shows is the log's.
 */
export class DeliverySeries {
  private retry: DeliveryRetry;
  private base: number;
  /** Where the series waits: its attempt (in flight or between retries) or a durable timer. */
  private waiting: { scope: CancellationScope; on: 'attempt' | 'interval' } | undefined;
  /** The log's attempt count a retry-now found, once it has woken the series. */
  private woken: number | undefined;
  /** Activities scheduled so far (their ids). */
  private scheduled = 0;
  /** A new series of the delivery replaces this one (the log says so already). */
  private superseded = false;
  /** The first attempt that reached the receiver (or found its URL refused) has ended. */
  private firstDone = false;
  private firstEnded: () => void = () => undefined;
  /** Resolves once the series' first attempt has ended (or the series has). */
  readonly firstAttempt: Promise<void>;

  constructor(
    private readonly input: SeriesInput,
    private readonly placement: SeriesPlacement,
  ) {
    this.retry = input.retry;
    this.base = input.base ?? 0;
    this.firstAttempt = new Promise((resolve) => {
      this.firstEnded = () => {
        this.firstDone = true;
        resolve();
      };
    });
  }

  get deliveryId(): string {
    return this.input.deliveryId;
  }

  /** The series' name in the delivery log (`original`, or a resend's `resend_…`). */
  get name(): string {
    return this.input.series;
  }

  /** The attempts the log held when this series began: its first attempt is the next. */
  get firstNumber(): number {
    return (this.input.base ?? 0) + 1;
  }

  /**
   * Refuses to wake a series that is not waiting: an attempt the caller saw in backoff must still
   * be this series' attempt, and without one the series must be waiting on a durable timer (after a
   * full endpoint's turn-aways, or the interval after a first attempt made alone), not starting or ending.
   */
  validateRetryNow({ backoff }: RetryNow): void {
    const waiting = this.waiting?.on;
    if (backoff ? waiting !== 'attempt' : waiting !== 'interval')
      throw new Error(`the series is not waiting for its next attempt (${this.waiting?.on ?? 'not waiting'})`);
  }

  /**
   * Wakes the series for its next attempt now, numbered after the `logged` attempts. An attempt
   * that has begun meanwhile still ends first (its cancellation waits for it).
   */
  retryNow({ logged }: RetryNow): { attempt: number } {
    this.woken = Math.max(logged, this.base);
    this.waiting?.scope.cancel();
    return { attempt: this.woken + 1 };
  }

  /**
   * Stops the series for a new one the delivery log has claimed (a resend after this one freed the
   * delivery): an attempt in flight ends first; the series then answers `superseded`, or how it ended.
   */
  supersede(): void {
    this.superseded = true;
    this.waiting?.scope.cancel();
  }

  /** Read through a method: a new series arrives while the series awaits, which narrowing cannot see. */
  private isSuperseded(): boolean {
    return this.superseded;
  }

  async run(): Promise<DeliveryOutcome | 'superseded'> {
    try {
      return await this.attempts();
    } finally {
      this.firstEnded();
    }
  }

  private async attempts(): Promise<DeliveryOutcome | 'superseded'> {
    for (;;) {
      if (this.isSuperseded()) return 'superseded';
      // A chain's head makes its first attempt alone (until one reaches the receiver); the rest of its series follows as a series does.
      const alone = this.placement.firstAlone === true && !this.firstDone;
      // The activity's own policy stops after one attempt; the log still counts it as 1 of the series'.
      const retry = alone ? { ...this.retry, maximumAttempts: 1 } : this.retry;
      const { deliverWebhook } = proxyActivities<Activities>({
        ...deliveryActivityOptions(retry),
        cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
        // After a retry-now or a full endpoint's turn-aways, the activity's own count starts again at 1:
        // its summary names the delivery log's numbers (docs/webhooks.md, "Retry now").
        summary: `${this.placement.label} · ${attemptsSummary(this.base, retry.maximumAttempts)}`,
        // Named by the delivery, so that the Temporal UI and the tests find a delivery's attempts.
        activityId: this.scheduled === 0 ? this.input.deliveryId : `${this.input.deliveryId}.${this.scheduled}`,
      });
      this.scheduled++;
      let result;
      try {
        result = await this.cancellable('attempt', () => deliverWebhook({ ...this.input, retry: this.retry, base: this.base }));
      } catch (err) {
        // A full endpoint's turn-away sent nothing: a chain's next delivery still waits for this one.
        if (alone && !endpointBusy(err)) this.firstEnded();
        if (this.isSuperseded() && wokenOut(err)) return 'superseded';
        if (this.woken !== undefined && wokenOut(err)) {
          if (!this.continueAfter(this.woken - this.base)) return 'skipped';
          continue;
        }
        // The endpoint was full at the activity's last attempt: nothing sent, and nothing lost. Each
        // turned-away attempt is logged with its number; the series goes on after them, with at least one attempt left.
        if (endpointBusy(err)) {
          this.afterBusy(retry.maximumAttempts);
          await this.cancellable('interval', () => sleep(endpointBusyDelayMs(this.base))).catch((e: unknown) => {
            if (!isCancellation(e)) throw e;
          });
          this.woken = undefined;
          continue;
        }
        if (alone && retriesLeft(err)) {
          this.firstEnded();
          const rest = continuedRetry(this.retry, 1);
          if (!rest) return await this.giveUp(err);
          await this.cancellable('interval', () => sleep(rest.waitMs)).catch((e: unknown) => {
            if (!isCancellation(e)) throw e;
          });
          this.retry = rest.retry;
          this.base += 1;
          this.woken = undefined;
          continue;
        }
        return await this.giveUp(err);
      }
      if (alone) this.firstEnded();
      return result;
    }
  }

  /** `made` attempts of an activity, all turned away at the last by a full endpoint: the series goes on after them. */
  private afterBusy(made: number): void {
    const rest = continuedRetry(this.retry, made);
    // A delivery is never given up for a full endpoint: at least one attempt is left.
    this.retry = rest ? rest.retry : { ...this.retry, maximumAttempts: 1 };
    this.base += made;
  }

  private async giveUp(err: unknown): Promise<never> {
    await gaveUp(this.input.deliveryId, this.input.series, err);
    throw ApplicationFailure.nonRetryable(
      `delivery ${this.input.deliveryId} failed after its retries`,
      WEBHOOK_DELIVERY_EXHAUSTED,
      String(err),
    );
  }

  /** The rest of the series after `made` more attempts: false when none is left. */
  private continueAfter(made: number): boolean {
    this.woken = undefined;
    const rest = continuedRetry(this.retry, Math.max(0, made));
    if (!rest) return false;
    this.retry = rest.retry;
    this.base += Math.max(0, made);
    return true;
  }

  private async cancellable<T>(on: 'attempt' | 'interval', fn: () => Promise<T>): Promise<T> {
    const scope = new CancellationScope();
    this.waiting = { scope, on };
    try {
      return await scope.run(fn);
    } finally {
      this.waiting = undefined;
    }
  }
}

/** A first attempt made alone that failed as the retry policy would retry it (not a final failure). */
function retriesLeft(err: unknown): boolean {
  return err instanceof ActivityFailure && err.retryState === RetryState.MAXIMUM_ATTEMPTS_REACHED;
}

/** An activity whose last attempt found its endpoint full (WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT): nothing was sent. */
function endpointBusy(err: unknown): boolean {
  return (
    err instanceof ActivityFailure &&
    err.retryState === RetryState.MAXIMUM_ATTEMPTS_REACHED &&
    err.cause instanceof ApplicationFailure &&
    err.cause.type === WEBHOOK_ENDPOINT_BUSY
  );
}

/** The delivery log's numbers of an activity's attempts, for the Temporal UI. */
export function attemptsSummary(base: number, attempts: number): string {
  const first = base + 1;
  const last = base + attempts;
  const range = first === last ? `delivery log attempt ${first}` : `delivery log attempts ${first}–${last}`;
  return base > 0 ? `${range} (the activity's attempt n is ${base} + n)` : range;
}

/** An attempt given up for a retry-now: cancelled between attempts, or failing in flight as the cancellation reached it. */
function wokenOut(err: unknown): boolean {
  return isCancellation(err) || (err instanceof ActivityFailure && err.retryState === RetryState.CANCEL_REQUESTED);
}
