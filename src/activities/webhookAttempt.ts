/**
 * One webhook delivery attempt, as every path makes it: the delivery activity under Temporal's retry
 * policy, and the first attempt a transition's publication makes inline (docs/webhooks.md). Never
 * throws for the receiver's or the URL's sake: the caller turns the result into a retry or not.
 */
import type { Knex } from 'knex';
import { fetch } from 'undici';
import ms from 'ms';
import { webhookSecretKey, type Config } from '../config';
import { answerError, statusAfterAttempt } from '../domain/deliveryAttempt';
import { disableWebhook } from '../db/webhookConfigurations';
import { type LoadedDelivery, failingSince, loadDelivery, markDelivery, recordAttempt } from '../db/webhookDeliveries';
import type { Logger } from '../lib/logger';
import { webhookDeliveries, webhookDuration } from '../lib/metrics';
import { signWebhookBody, standardWebhookHeaders } from '../webhooks/signature';
import { checkResolvedHost, checkWebhookUrl, deliveryAgent } from '../webhooks/urlPolicy';

export type AttemptResult =
  | { outcome: 'succeeded' | 'skipped' }
  /** Not attempted (an attempt already logged for `first`, or the series ended): the delivery's status, for the caller to judge. */
  | { outcome: 'not-attempted'; status: string }
  | { outcome: 'failed'; retryable: boolean; type: string; message: string };

export interface AttemptOptions {
  /** The HTTP call's time-out. */
  timeoutMs: number;
  /** This attempt's number in its retry series (1 = first), and the series' limit: they decide the status left. */
  seriesAttempt: number;
  maximumAttempts: number;
  /**
   * The attempt is logged as `attemptBase + seriesAttempt`; `logged`: as the one after the attempts
   * already logged (a series continuing an inline first attempt).
   */
  attemptBase: number | 'logged';
  /**
   * `first`: only if no attempt is logged yet (a publication's inline attempt, which a retried
   * activity must not repeat); `pending`: only while the delivery is pending (a series continuing
   * an earlier one); `unless-delivered`: unless a resend or recover delivered it meanwhile (a retry);
   * `always`: a series' first attempt, a resend's too.
   */
  only: 'first' | 'pending' | 'unless-delivered' | 'always';
}

export interface AttemptDeps {
  db: Knex;
  config: Config;
  logger: Logger;
}

/**
 * `loaded`: the delivery and its configuration as the caller already has them (a publication's
 * plan); otherwise they are read.
 */
export async function attemptDelivery(
  { db, config, logger }: AttemptDeps,
  deliveryId: string,
  o: AttemptOptions,
  loaded?: LoadedDelivery,
): Promise<AttemptResult> {
  const found = loaded ?? (await loadDelivery(db, deliveryId, webhookSecretKey(config)));
  if (!found) return { outcome: 'failed', retryable: false, type: 'DeliveryNotFound', message: `delivery ${deliveryId} not found` };
  const { delivery, webhook } = found;
  if (o.only === 'first' && delivery.attempts > 0) return { outcome: 'not-attempted', status: delivery.status };
  const ended = o.only === 'pending' ? delivery.status !== 'pending' : o.only === 'unless-delivered' && delivery.status === 'succeeded';
  if (ended) {
    if (delivery.status === 'succeeded')
      logger.info({ delivery_id: deliveryId }, 'delivered meanwhile by a resend or recover; this series stops');
    return { outcome: 'not-attempted', status: delivery.status };
  }
  const attempt = o.attemptBase === 'logged' ? delivery.attempts + 1 : o.attemptBase + o.seriesAttempt;
  const log = logger.child({ delivery_id: deliveryId, webhook_id: webhook.id, event: delivery.event, attempt });
  if (!webhook.active || webhook.deleted_at) {
    await markDelivery(db, deliveryId, 'skipped');
    webhookDeliveries.inc({ outcome: 'skipped' });
    log.info('webhook configuration deleted; delivery skipped');
    return { outcome: 'skipped' };
  }
  const started = Date.now();
  const at = new Date(started);
  /** A URL the rules forbid: one recorded attempt, no retries. */
  const refuse = async (reason: string, durationMs: number): Promise<AttemptResult> => {
    await recordAttempt(db, found, { attempt, at, statusCode: null, durationMs, error: `refused: ${reason}` }, 'failed');
    webhookDeliveries.inc({ outcome: 'refused' });
    return { outcome: 'failed', retryable: false, type: 'WebhookUrlRefused', message: reason };
  };
  // The URL rules apply again at delivery time, in both modes: DNS may have changed since configuration.
  const rules = { livemode: webhook.livemode, allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK };
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
      dispatcher: deliveryAgent(rules),
      body: delivery.body,
      redirect: 'manual', // a redirect is a failed attempt, never followed
      signal: AbortSignal.timeout(o.timeoutMs),
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
    excerpt = await readExcerpt(response.body);
    error = answerError(statusCode);
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    if (e.cause?.code === 'EBLOCKEDADDRESS') blockedAtConnect = e.cause.message ?? 'blocked address';
    error = e.name === 'TimeoutError' ? `no answer within ${o.timeoutMs} ms` : (e.cause?.code ?? e.cause?.message ?? e.message);
  }
  const durationMs = Date.now() - started;
  if (blockedAtConnect) return refuse(blockedAtConnect, durationMs);
  const outcome = error ? 'failed' : 'succeeded';
  webhookDeliveries.inc({ outcome });
  webhookDuration.observe({ outcome }, durationMs / 1000);
  const finalStatus = statusAfterAttempt(Boolean(error), o.seriesAttempt, o.maximumAttempts);
  // 410 Gone: the receiver says the endpoint is gone for good. No more attempts, to any delivery.
  if (statusCode === 410) {
    await recordAttempt(db, found, { attempt, at, statusCode, durationMs, error, excerpt }, 'failed');
    await disableWebhook(db, webhook.id, 'the receiver answered HTTP 410 Gone');
    log.warn({ webhook_id: webhook.id }, 'webhook configuration disabled: the receiver answered 410');
    return {
      outcome: 'failed',
      retryable: false,
      type: 'WebhookGone',
      message: 'the receiver answered HTTP 410 Gone; configuration disabled',
    };
  }
  await recordAttempt(db, found, { attempt, at, statusCode, durationMs, error, excerpt }, finalStatus);
  // Every delivery failing for WEBHOOK_DISABLE_AFTER: the endpoint is off until re-enabled.
  if (error && (await failingSince(db, webhook.id, config.WEBHOOK_DISABLE_AFTER))) {
    await disableWebhook(db, webhook.id, `every delivery failed for ${ms(config.WEBHOOK_DISABLE_AFTER, { long: true })}`);
    log.warn({ webhook_id: webhook.id }, 'webhook configuration disabled: every delivery failed for the whole window');
    return { outcome: 'failed', retryable: false, type: 'WebhookDisabled', message: error };
  }
  if (error) {
    log.warn({ status_code: statusCode, duration_ms: durationMs, error }, 'webhook delivery attempt failed');
    return { outcome: 'failed', retryable: true, type: 'WebhookDeliveryFailed', message: error };
  }
  log.info({ status_code: statusCode, duration_ms: durationMs }, 'webhook delivered');
  return { outcome: 'succeeded' };
}

const EXCERPT_BYTES = 1024;

/** The first 1 KB of a receiver's answer, as text PostgreSQL can store; the rest is not read. */
async function readExcerpt(body: ReadableStream<Uint8Array> | null): Promise<string | null> {
  if (!body) return null;
  const reader = body.getReader();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    while (size < EXCERPT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(Buffer.from(value));
      size += value.byteLength;
    }
  } catch {
    // An answer cut short still has the part read.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const text = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
  return text.replace(/\u0000/g, '').toWellFormed();
}
