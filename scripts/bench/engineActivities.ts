/**
 * (B2)'s one activity: POST a transition's event to the webhook receiver, signed as the service signs
 * (`X-Service-Signature`, hex HMAC-SHA256 of the exact body). A non-2xx answer throws, so Temporal's
 * retry policy schedules the next attempt.
 */
import { createHmac } from 'node:crypto';
import { Agent, request } from 'undici';

export function createEngineActivities(receiverUrl: string, secret: string) {
  const agent = new Agent({ connections: 64, keepAliveTimeout: 10_000 });
  return {
    async postEvent(paymentId: string, event: string): Promise<void> {
      const body = JSON.stringify({ id: `evt_${paymentId}_${event}`, event, payment_id: paymentId, created_at: new Date().toISOString() });
      const res = await request(receiverUrl, {
        method: 'POST',
        dispatcher: agent,
        body,
        headers: { 'content-type': 'application/json', 'x-service-signature': createHmac('sha256', secret).update(body).digest('hex') },
        headersTimeout: 10_000,
      });
      await res.body.dump();
      if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`receiver answered HTTP ${res.statusCode}`);
    },
  };
}

export type EngineActivities = ReturnType<typeof createEngineActivities>;
