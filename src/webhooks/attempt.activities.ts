/**
 * One webhook delivery attempt (src/webhooks/delivery.activities.ts). Never throws for the receiver's or
 * the URL's sake: the caller turns the result into a retry or not.
 */
import { fetch } from 'undici';
import ms from 'ms';
import { answerError, refusedError, statusAfterAttempt, timeoutError } from './deliveryAttempt.rules';
import { disableWebhook } from './webhookConfigurations.repository';
import { type LoadedDelivery, failingSince, markSkipped } from './webhookDeliveries.repository';
import { recordAttempt } from './attemptLog.repository';
import { webhookDeliveries, webhookDuration } from '../platform/lib/metrics';
import { signWebhookBody, standardWebhookHeaders } from './signature';
import { checkResolvedHost, checkWebhookUrl, deliveryAgent, webhookUrlRules } from './urlPolicy';
import { readExcerpt } from './responseExcerpt';
import type { ActivityResources } from '../platform/activityResources';
import { WEBHOOK_DELIVERY_FAILED, WEBHOOK_DISABLED, WEBHOOK_GONE, WEBHOOK_URL_REFUSED } from '../platform/failures.rules';

type AttemptResult =
  | { outcome: 'succeeded' | 'skipped' }
  /** Not attempted: the series no longer owns the delivery, or it ended; the delivery's status, for the caller to judge. */
  | { outcome: 'not-attempted'; status: string }
  | { outcome: 'failed'; retryable: boolean; type: string; message: string };

/** One attempt of a series. */
interface AttemptRequest {
  /** The series it belongs to: it runs only while that series owns the pending delivery. */
  series: string;
  /** Its number in the series (1 = first), and the series' limit: they decide the status left. */
  seriesAttempt: number;
  maximumAttempts: number;
  /** Its number in the delivery log: the series' attempts follow the log's earlier ones. */
  logAttempt: number;
  /** The HTTP call's time-out. */
  timeoutMs: number;
  /** Called once the exchange with the receiver has ended, before the attempt is recorded (the endpoint's lease goes back). */
  answered?: () => Promise<void>;
}

/** One attempt of `req.series` for the delivery as loaded (with its configuration's secrets). */
export async function attemptDelivery(
  { db, config, logger }: ActivityResources,
  found: LoadedDelivery,
  req: AttemptRequest,
): Promise<AttemptResult> {
  const { delivery, webhook } = found;
  const deliveryId = delivery.id;
  if (delivery.series !== req.series || delivery.status !== 'pending') {
    logger.info({ delivery_id: deliveryId, series: req.series, status: delivery.status }, 'delivery no longer this series’; not attempted');
    return { outcome: 'not-attempted', status: delivery.status };
  }
  const log = logger.child({ delivery_id: deliveryId, webhook_id: webhook.id, event: delivery.event, series: req.series });
  if (!webhook.active || webhook.deleted_at) {
    await markSkipped(db, deliveryId);
    webhookDeliveries.inc({ outcome: 'skipped' });
    log.info('webhook configuration deleted; delivery skipped');
    return { outcome: 'skipped' };
  }
  const started = Date.now();
  const at = new Date(started);
  /** A URL the rules forbid: one recorded attempt, no retries. */
  const refuse = async (reason: string, durationMs: number): Promise<AttemptResult> => {
    await recordAttempt(db, found, { at, statusCode: null, durationMs, error: refusedError(reason) }, 'failed', req.logAttempt);
    webhookDeliveries.inc({ outcome: 'refused' });
    return { outcome: 'failed', retryable: false, type: WEBHOOK_URL_REFUSED, message: reason };
  };
  // The URL rules apply again at delivery time, in both modes: DNS may have changed since configuration.
  const rules = webhookUrlRules(config, webhook.livemode);
  const check = checkWebhookUrl(webhook.url, rules);
  if (!check.ok) return refuse(check.message, 0);
  const resolved = await checkResolvedHost(check.url, rules);
  if (!resolved.ok) return refuse(resolved.message, 0);

  let statusCode: number | null = null;
  let excerpt: string | null = null;
  let error: string | null = null;
  let blockedAtConnect: string | null = null;
  try {
    const response = await fetch(webhook.url, {
      method: 'POST',
      // Connect only to an address that passed the check (no DNS rebinding).
      dispatcher: deliveryAgent(rules, resolved.loopback),
      body: delivery.body,
      redirect: 'manual', // a redirect is a failed attempt, never followed
      signal: AbortSignal.timeout(req.timeoutMs),
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'payment-custody-webhooks/1',
        'X-Service-Signature': signWebhookBody(delivery.body, webhook.secret),
        'X-Service-Event': delivery.event,
        'X-Service-Delivery': delivery.id,
        // Standard Webhooks: the id, this attempt's time and the body signed together, so a
        // captured delivery cannot be replayed later; both secrets during a rotation's overlap.
        ...standardWebhookHeaders(
          delivery.id,
          delivery.body,
          webhook.previousSecret ? [webhook.secret, webhook.previousSecret] : [webhook.secret],
          started,
        ),
      },
    });
    statusCode = response.status;
    // A loopback receiver's answer is never kept: a local service's reply would be readable by the
    // test key that configured it (docs/security.md, "Loopback only to the ports listed").
    if (resolved.loopback) await response.body?.cancel().catch(() => undefined);
    else excerpt = await readExcerpt(response.body);
    error = answerError(statusCode);
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    if (e.cause?.code === 'EBLOCKEDADDRESS') blockedAtConnect = e.cause.message ?? 'blocked address';
    error = e.name === 'TimeoutError' ? timeoutError(req.timeoutMs) : (e.cause?.code ?? e.cause?.message ?? e.message);
  }
  const durationMs = Date.now() - started;
  await req.answered?.();
  if (blockedAtConnect) return refuse(blockedAtConnect, durationMs);
  const outcome = error ? 'failed' : 'succeeded';
  webhookDeliveries.inc({ outcome });
  webhookDuration.observe({ outcome }, durationMs / 1000);
  const finalStatus = statusAfterAttempt(Boolean(error), req.seriesAttempt, req.maximumAttempts);
  // 410 Gone: the receiver says the endpoint is gone for good. No more attempts, to any delivery.
  if (statusCode === 410) {
    await recordAttempt(db, found, { at, statusCode, durationMs, error, excerpt }, 'failed', req.logAttempt);
    await disableWebhook(db, webhook.id, 'the receiver answered HTTP 410 Gone');
    log.warn({ webhook_id: webhook.id }, 'webhook configuration disabled: the receiver answered 410');
    return {
      outcome: 'failed',
      retryable: false,
      type: WEBHOOK_GONE,
      message: 'the receiver answered HTTP 410 Gone; configuration disabled',
    };
  }
  const attempt = await recordAttempt(db, found, { at, statusCode, durationMs, error, excerpt }, finalStatus, req.logAttempt);
  // Every delivery failing for WEBHOOK_DISABLE_AFTER: the endpoint is off until re-enabled.
  if (error && (await failingSince(db, webhook.id, config.WEBHOOK_DISABLE_AFTER))) {
    await disableWebhook(db, webhook.id, `every delivery failed for ${ms(config.WEBHOOK_DISABLE_AFTER, { long: true })}`);
    log.warn({ webhook_id: webhook.id }, 'webhook configuration disabled: every delivery failed for the whole window');
    return { outcome: 'failed', retryable: false, type: WEBHOOK_DISABLED, message: error };
  }
  if (error) {
    log.warn({ attempt, status_code: statusCode, duration_ms: durationMs, error }, 'webhook delivery attempt failed');
    return { outcome: 'failed', retryable: true, type: WEBHOOK_DELIVERY_FAILED, message: error };
  }
  log.info({ attempt, status_code: statusCode, duration_ms: durationMs }, 'webhook delivered');
  return { outcome: 'succeeded' };
}
