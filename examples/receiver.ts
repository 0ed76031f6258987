/**
 * A minimal webhook receiver: `PORT=4000 WEBHOOK_SECRET=whsec_… npm run example:receiver`.
 * Verifies the raw body bytes by Standard Webhooks, with a five-minute timestamp tolerance (a
 * delivery without `webhook-signature` is refused: it could be a replay); 401 on a bad or missing signature, 200 {"received":true}
 * on a good one; one log line per request, refusals included. Answer fast, work afterwards.
 */
import http from 'node:http';
import { verifyWebhook } from '../src';

export function createReceiver(
  secret: string,
  onEvent: (event: unknown) => void = (e) => console.log(JSON.stringify(e)),
  logLine: (line: string) => void = (line) => console.error(line),
) {
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks); // verify these exact bytes, never a re-serialised object
      const reply = (status: number, body: object) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'POST') return reply(405, { error: 'POST only' });
      const verdict = verifyWebhook(raw, req.headers, secret);
      const header = (name: string) => String(req.headers[name] ?? '?');
      const event = header('x-service-event');
      const delivery = req.headers['webhook-id'] ? header('webhook-id') : header('x-service-delivery');
      logLine(`${event} ${delivery} ${verdict.ok ? `accepted (${verdict.scheme})` : `refused: ${verdict.reason}`}`);
      if (!verdict.ok) return reply(401, { error: 'invalid signature' });
      reply(200, { received: true });
      // Delivery is at least once: deduplicate on payment_id + event before acting.
      setImmediate(() => {
        try {
          onEvent(JSON.parse(raw.toString('utf8')));
        } catch {
          /* a signed body is always JSON; nothing to do otherwise */
        }
      });
    });
  });
}

if (require.main === module) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    console.error('set WEBHOOK_SECRET to the secret returned by POST /api/v1/webhooks/configure');
    process.exit(1);
  }
  const port = Number(process.env.PORT ?? 4000);
  createReceiver(secret).listen(port, () => console.error(`webhook receiver listening on http://127.0.0.1:${port}`));
}
