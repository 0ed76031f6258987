/**
 * A delivery's series (docs/webhooks.md, "One road"): the one workflow every attempt runs in —
 * first, retry, resend, recover, test — started with the delivery's id on the webhooks task queue
 * (src/domain/deliverySeries.ts).
 */
import {
  ActivityCancellationType,
  ActivityFailure,
  type ActivityOptions,
  ApplicationFailure,
  CancellationScope,
  defineUpdate,
  isCancellation,
  log,
  proxyActivities,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import { RetryState } from '@temporalio/common';
import type { Activities, DeliveryOutcome, DeliveryRetry, SeriesInput } from '../activities';
import { continuedRetry } from '../webhookRules/retryPolicy';
import { FINAL_DELIVERY_FAILURES, WEBHOOK_DELIVERY_EXHAUSTED } from '../domain/failures';

/** As src/activities/delivery.ts's DELIVERY_ACTIVITY_MARGIN_MS: the lease an attempt holds is as long as its activity may run. */
const DELIVERY_ACTIVITY_MARGIN_MS = 10_000;

/** Waits for a turn at a full endpoint: from 1 s, doubling, at most 30 s (durable timers, no worker slot held). */
const BUSY_WAIT_MS = { initial: 1_000, max: 30_000 };

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

/** Retry now (docs/webhooks.md, "Retry now"): the series, waiting between attempts, runs its next one at once. */
export const retryNowUpdate = defineUpdate<{ attempt: number }, [RetryNow]>('retryNow');

export interface RetryNow {
  /** The attempts the delivery log holds: what is left of the series' retries goes on after them. */
  logged: number;
  /** The caller saw the series' attempt in the retry policy's backoff (Temporal's pending activity); else it saw none. */
  backoff: boolean;
}

/**
 * A delivery's series, the one road of every attempt (first, retry, resend, recover, test): one
 * activity under Temporal's retry policy (docs/webhooks.md, "Retries": initial 1 min, coefficient
 * 5, max interval 2 h, 5 attempts), so the attempt the Temporal UI shows is the log's.
 */
export class DeliverySeries {
  private retry: DeliveryRetry;
  private base: number;
  /** Where the series waits: its attempt (in flight or between retries) or a turn at a full endpoint. */
  private waiting: { scope: CancellationScope; on: 'attempt' | 'endpoint' } | undefined;
  /** The log's attempt count a retry-now found, once it has woken the series. */
  private woken: number | undefined;

  constructor(private readonly input: SeriesInput) {
    this.retry = input.retry;
    this.base = input.base ?? 0;
  }

  /**
   * Refuses to wake a series that is not waiting: an attempt the caller saw in backoff must still
   * be this series' attempt, and without one the series must be waiting for a turn at its endpoint
   * (not starting or ending).
   */
  validateRetryNow({ backoff }: RetryNow): void {
    const on = backoff ? 'attempt' : 'endpoint';
    if (this.waiting?.on !== on) throw new Error(`the series is not waiting for its next attempt (${this.waiting?.on ?? 'not waiting'})`);
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

  async run(): Promise<DeliveryOutcome> {
    for (let waits = 0; ; waits++) {
      const { deliverWebhook } = proxyActivities<Activities>({
        ...deliveryActivityOptions(this.retry),
        cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
        // After a retry-now or a wait for the endpoint, the activity's own count starts again at 1:
        // its summary names the delivery log's numbers (docs/webhooks.md, "Retry now").
        summary: attemptsSummary(this.base, this.retry.maximumAttempts),
      });
      let result;
      try {
        result = await this.cancellable('attempt', () => deliverWebhook({ ...this.input, retry: this.retry, base: this.base }));
      } catch (err) {
        if (this.woken !== undefined && wokenOut(err)) {
          if (!this.continueAfter(this.woken - this.base)) return 'skipped';
          waits = -1;
          continue;
        }
        await gaveUp(this.input.deliveryId, this.input.series, err);
        throw ApplicationFailure.nonRetryable(
          `delivery ${this.input.deliveryId} failed after its retries`,
          WEBHOOK_DELIVERY_EXHAUSTED,
          String(err),
        );
      }
      if (typeof result === 'string') return result;
      // The endpoint was full at the series' attempt `result.busy`: nothing sent. After a wait (or
      // a retry-now), the same attempt and those left, numbered on in the log.
      if (!this.continueAfter(result.busy - 1)) return 'skipped';
      try {
        await this.cancellable('endpoint', () => sleep(Math.min(BUSY_WAIT_MS.initial * 2 ** waits, BUSY_WAIT_MS.max)));
      } catch (err) {
        if (!isCancellation(err)) throw err;
        this.woken = undefined;
        waits = -1;
      }
    }
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

  private async cancellable<T>(on: 'attempt' | 'endpoint', fn: () => Promise<T>): Promise<T> {
    const scope = new CancellationScope();
    this.waiting = { scope, on };
    try {
      return await scope.run(fn);
    } finally {
      this.waiting = undefined;
    }
  }
}

/** The delivery log's numbers of an activity's attempts, for the Temporal UI. */
export function attemptsSummary(base: number, attempts: number): string {
  const first = base + 1;
  const last = base + attempts;
  return first === last
    ? `delivery log attempt ${first}`
    : `delivery log attempts ${first}–${last} (the activity's attempt n is ${base > 0 ? `${base} + n` : 'n'})`;
}

/** An attempt given up for a retry-now: cancelled between attempts, or failing in flight as the cancellation reached it. */
function wokenOut(err: unknown): boolean {
  return isCancellation(err) || (err instanceof ActivityFailure && err.retryState === RetryState.CANCEL_REQUESTED);
}

export async function webhookDeliveryWorkflow(input: SeriesInput): Promise<DeliveryOutcome> {
  const series = new DeliverySeries(input);
  setHandler(retryNowUpdate, (req) => series.retryNow(req), { validator: (req) => series.validateRetryNow(req) });
  return series.run();
}
