/**
 * The webhook receiver: checks every `X-Service-Signature` (lowercase hex HMAC-SHA256 of the exact
 * body, keyed with the configuration's secret; computed here independently of the service's code)
 * and notes when each (payment, event) first arrived.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export class WebhookReceiver {
  /** `${payment_id} ${event}` → first arrival (performance.now()). */
  readonly arrivals = new Map<string, number>();
  received = 0;
  duplicates = 0;
  badSignatures = 0;
  unreadable = 0;
  secret = '';
  url = '';
  private server?: http.Server;

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = performance.now();
        const body = Buffer.concat(chunks);
        this.received++;
        if (!this.verify(body, req.headers['x-service-signature'])) {
          this.badSignatures++;
          res.statusCode = 401;
          res.end('{"error":"bad signature"}');
          return;
        }
        try {
          const e = JSON.parse(body.toString('utf8')) as { payment_id: string; event: string; milestone?: { id: string } };
          // A milestone event is one per milestone: its id is part of the key.
          const key = `${e.payment_id} ${e.event}${e.milestone ? ` ${e.milestone.id}` : ''}`;
          if (this.arrivals.has(key)) this.duplicates++;
          else this.arrivals.set(key, at);
        } catch {
          this.unreadable++;
        }
        res.setHeader('content-type', 'application/json');
        res.end('{"received":true}');
      });
    });
    this.server.keepAliveTimeout = 10_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this.url;
  }

  private verify(body: Buffer, header: string | string[] | undefined): boolean {
    if (!this.secret || typeof header !== 'string' || !/^[0-9a-f]{64}$/.test(header)) return false;
    const expected = createHmac('sha256', this.secret).update(body).digest();
    return timingSafeEqual(expected, Buffer.from(header, 'hex'));
  }

  /** Wait until every key has arrived or `timeoutMs` passed; the keys still missing. */
  async waitFor(keys: string[], timeoutMs: number, onWait?: (missing: number) => void): Promise<string[]> {
    const deadline = Date.now() + timeoutMs;
    let missing = keys.filter((k) => !this.arrivals.has(k));
    while (missing.length && Date.now() < deadline) {
      onWait?.(missing.length);
      await new Promise((r) => setTimeout(r, 100));
      missing = missing.filter((k) => !this.arrivals.has(k));
    }
    return missing;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
