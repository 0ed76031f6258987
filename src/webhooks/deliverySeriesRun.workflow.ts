/**
 * A delivery's series as a workflow of its own (docs/webhooks.md, "One road"): a resend's, a test's,
 * a recover's, or one a finished payment's run handed over. It wires the series' messages to
 * ./deliverySeries.ts's `DeliverySeries`, which holds the logic.
 */
import { proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { Activities, DeliveryOutcome, SeriesInput } from '../platform/activities';
import { continuedRetry } from './retrySchedule';
import { DeliverySeries, retryNowUpdate } from './deliverySeries.workflow';

export async function webhookDeliveryWorkflow(input: SeriesInput): Promise<DeliveryOutcome> {
  // A resumed series begins its attempts after reading where the delivery stands.
  const begun: { series?: DeliverySeries } = {};
  setHandler(retryNowUpdate, (req) => (begun.series ?? notWaiting()).retryNow(req), {
    validator: (req) => (begun.series ?? notWaiting()).validateRetryNow(req),
  });
  const from = input.resumed ? await resumedSeries(input) : input;
  if (!from) return 'skipped';
  begun.series = new DeliverySeries(from);
  const outcome = await begun.series.run();
  // Only a payment's run hands a series over.
  return outcome === 'handed-over' ? 'skipped' : outcome;
}

function notWaiting(): never {
  throw new Error('the series has not begun its attempts');
}

// Reads where a handed-over delivery stands; a series with nothing left frees it.
const { deliveryProgress, endSeries } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumInterval: '10 seconds' },
});

/**
 * A series a payment's run handed over: what is left of it after the attempts the log holds, once
 * the retry policy's wait after the last has passed. None when the delivery has ended meanwhile.
 */
async function resumedSeries(input: SeriesInput): Promise<SeriesInput | undefined> {
  const progress = await deliveryProgress(input.deliveryId);
  if (!progress || progress.status !== 'pending' || progress.series !== input.series) return undefined;
  const base = input.base ?? 0;
  const rest = continuedRetry(input.retry, Math.max(0, progress.attempts - base));
  if (!rest) {
    await endSeries({ deliveryId: input.deliveryId, series: input.series });
    return undefined;
  }
  const sinceLast = progress.lastAttemptAt === null ? 0 : Date.now() - progress.lastAttemptAt;
  if (rest.waitMs > sinceLast) await sleep(rest.waitMs - sinceLast);
  return { deliveryId: input.deliveryId, series: input.series, retry: rest.retry, base: Math.max(base, progress.attempts) };
}
