/**
 * A minimal webhook receiver: `PORT=4000 WEBHOOK_SECRET=whsec_… npm run example:receiver`.
 * Refuses a body over 1 MB with 413 before verifying anything, reading no more than that; verifies
 * the raw body bytes by Standard Webhooks, with a five-minute timestamp tolerance (a delivery without
 * `webhook-signature` is refused: it could be a replay); 401 on a bad or missing signature, 200
 * {"received":true} on a good one; acts once per `webhook-id` (delivery is at least once); one log
 * line per request, refusals included. Answer fast, work afterwards.
 */
import http from 'node:http';
import { verifyWebhook } from '../src';

/** The largest body read: the service's events are a few KB; anything bigger is refused unread. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Delivery ids already acted on. A real receiver keeps them in its database, beside the work the
 * event caused, for longer than the service retries (about 2.5 hours) and resends (any time).
 */
class SeenIds {
  private readonly ids = new Set<string>();
  constructor(private readonly max = 100_000) {}
  /** True the first time an id is seen. */
  first(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    // Forget the oldest beyond `max` (a Set iterates in insertion order).
    if (this.ids.size > this.max) this.ids.delete(this.ids.values().next().value!);
    return true;
  }
}

export function createReceiver(
  secret: string,
  onEvent: (event: unknown) => void = (e) => console.log(JSON.stringify(e)),
  logLine: (line: string) => void = (line) => console.error(line),
) {
  const seen = new SeenIds();
  return http.createServer((req, res) => {
    const header = (name: string) => String(req.headers[name] ?? '?');
    const event = header('x-service-event');
    const delivery = req.headers['webhook-id'] ? header('webhook-id') : header('x-service-delivery');
    const reply = (status: number, body: object) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    /** Over the limit: answer, stop reading, and close once the answer is out. */
    const tooLarge = () => {
      logLine(`${event} ${delivery} refused: body over ${MAX_BODY_BYTES} bytes`);
      req.pause();
      res.setHeader('Connection', 'close');
      res.once('finish', () => req.socket.destroy());
      reply(413, { error: `body over ${MAX_BODY_BYTES} bytes` });
    };
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (c: Buffer) => {
      if (refused) return;
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        refused = true;
        chunks.length = 0;
        return tooLarge();
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (refused) return;
      const raw = Buffer.concat(chunks); // verify these exact bytes, never a re-serialised object
      if (req.method !== 'POST') return reply(405, { error: 'POST only' });
      const verdict = verifyWebhook(raw, req.headers, secret);
      if (!verdict.ok) {
        logLine(`${event} ${delivery} refused: ${verdict.reason}`);
        return reply(401, { error: 'invalid signature' });
      }
      // Delivery is at least once: a retry or a resend carries the same webhook-id; act on it once.
      // Never payment_id + event: one payment emits the same pair more than once (its milestones).
      if (!seen.first(delivery)) {
        logLine(`${event} ${delivery} accepted (${verdict.scheme}), already handled`);
        return reply(200, { received: true });
      }
      logLine(`${event} ${delivery} accepted (${verdict.scheme})`);
      reply(200, { received: true });
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
  // On loopback only, as it says: the service reaches it there (WEBHOOK_LOOPBACK_PORTS lists 4000 in the quickstart).
  createReceiver(secret).listen(port, '127.0.0.1', () => console.error(`webhook receiver listening on http://127.0.0.1:${port}`));
}
