/**
 * `npm run webhooks:listen -- [--forward-to URL] [--api URL] [--api-key KEY] [--port N]`, in the
 * spirit of `stripe listen`: configures a test-mode webhook pointing at a receiver on loopback,
 * prints its secret, verifies and prints every delivery (event, payment, verdict), forwards it as
 * it came (body and signature headers) and removes the configuration on Ctrl-C.
 *
 * The key: --api-key, else SERVICE_API_KEY, else KEY (docs/quickstart.md's), else the demo test
 * key `npm start` keeps in DATA_DIR/demo.json. The API: --api, else API (the quickstart's, ending in
 * /api/v1), else http://127.0.0.1:$PORT/api/v1 (PORT default 3000). The receiver's port: --port, else
 * WEBHOOKS_LISTEN_PORT, else 4000, the port the quickstart lists in the service's
 * WEBHOOK_LOOPBACK_PORTS (docs/quickstart.md; docs/security.md, "Loopback only to the ports listed").
 * Without --forward-to it answers every verified delivery itself: the quickstart's one receiver.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { verifyWebhook } from '../src/webhooks/signature';

/** The receiver's port unless told otherwise: the one docs/quickstart.md lists in WEBHOOK_LOOPBACK_PORTS. */
const QUICKSTART_RECEIVER_PORT = 4000;

/** Headers a receiver needs to verify a forwarded delivery; hop-by-hop ones are not forwarded. */
const FORWARDED = [
  'content-type',
  'user-agent',
  'x-service-signature',
  'x-service-event',
  'x-service-delivery',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
];

function fail(message: string): never {
  process.stderr.write(`webhooks:listen: ${message}\n`);
  process.exit(1);
}

function apiKey(flag: string | undefined): string {
  if (flag) return flag;
  if (process.env.SERVICE_API_KEY) return process.env.SERVICE_API_KEY;
  if (process.env.KEY) return process.env.KEY;
  const file = path.join(process.env.DATA_DIR ?? '.data', 'demo.json');
  let stored: string | undefined;
  try {
    stored = (JSON.parse(fs.readFileSync(file, 'utf8')) as { test_api_key?: string }).test_api_key;
  } catch {
    stored = undefined;
  }
  // The file names no key at its top when the database in use has no demo account (src/demo.ts).
  return (
    stored ?? fail(`no API key: pass --api-key svc_test_…, set SERVICE_API_KEY or KEY, or run \`npm start\` first (it writes ${file})`)
  );
}

async function main() {
  const { values } = parseArgs({
    options: {
      'forward-to': { type: 'string' },
      api: { type: 'string' },
      'api-key': { type: 'string' },
      port: { type: 'string', default: process.env.WEBHOOKS_LISTEN_PORT ?? String(QUICKSTART_RECEIVER_PORT) },
    },
  });
  const api = (values.api ?? process.env.API ?? `http://127.0.0.1:${process.env.PORT ?? '3000'}/api/v1`).replace(/\/$/, '');
  const key = apiKey(values['api-key']);
  if (!key.startsWith('svc_test_')) fail('webhooks:listen is for test mode: use a svc_test_… key');
  const forwardTo = values['forward-to'];
  if (forwardTo !== undefined && !URL.canParse(forwardTo)) fail(`--forward-to must be an absolute URL, e.g. http://127.0.0.1:5000/hook`);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    fail(`--port must be a port number (default ${QUICKSTART_RECEIVER_PORT}; 0 picks a free one)`);
  const say = (line: string) => process.stdout.write(`${line}\n`);
  let secret = '';

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks);
        const verdict = verifyWebhook(raw, req.headers, secret);
        let paymentId = '?';
        try {
          const parsed = JSON.parse(raw.toString('utf8')) as { payment_id?: unknown };
          if (typeof parsed.payment_id === 'string') paymentId = parsed.payment_id;
        } catch {
          /* not JSON: shown as ? */
        }
        const event = String(req.headers['x-service-event'] ?? '?');
        const shown = `${new Date().toISOString()}  ${event.padEnd(18)} ${paymentId}  ${verdict.ok ? `verified (${verdict.scheme})` : `REFUSED: ${verdict.reason}`}`;
        if (!verdict.ok) {
          say(shown);
          res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"error":"invalid signature"}');
          return;
        }
        if (!forwardTo) {
          say(shown);
          res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"received":true}');
          return;
        }
        // The receiver under development answers for us, so the service's retries follow its answers.
        const headers: Record<string, string> = {};
        for (const name of FORWARDED) if (req.headers[name] !== undefined) headers[name] = String(req.headers[name]);
        try {
          const forwarded = await fetch(forwardTo, { method: 'POST', headers, body: raw, signal: AbortSignal.timeout(10_000) });
          say(`${shown}  → ${forwarded.status}`);
          res
            .writeHead(forwarded.status, { 'Content-Type': forwarded.headers.get('content-type') ?? 'text/plain' })
            .end(Buffer.from(await forwarded.arrayBuffer()));
        } catch (err) {
          say(`${shown}  → forward failed: ${err instanceof Error ? err.message : String(err)}`);
          res.writeHead(502, { 'Content-Type': 'application/json' }).end('{"error":"forward target unreachable"}');
        }
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EADDRINUSE'
        ? fail(`port ${port} is in use: pass --port N (and list N in the service's WEBHOOK_LOOPBACK_PORTS)`)
        : reject(err),
    );
    server.listen(port, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

  const call = async (method: string, route: string, body?: unknown) => {
    let res: Response;
    try {
      res = await fetch(`${api}${route}`, {
        method,
        headers: { 'X-API-Key': key, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    } catch (err) {
      return fail(`cannot reach the API at ${api} (${err instanceof Error ? err.message : String(err)}); is \`npm start\` running?`);
    }
    const answer = (await res.json().catch(() => ({}))) as Record<string, any>;
    const detail = String(answer.error?.details?.[0]?.message ?? answer.error?.message ?? '');
    // The service lists the loopback ports a test webhook may reach: say how to add this one.
    const hint = detail.includes('WEBHOOK_LOOPBACK_PORTS')
      ? ` (start the service with WEBHOOK_LOOPBACK_PORTS=${(server.address() as AddressInfo).port}, as docs/quickstart.md does)`
      : '';
    if (!res.ok) fail(`${method} ${route}: ${res.status} ${detail}${hint}`);
    return answer;
  };
  const configuring = call('POST', '/webhooks/configure', { url }).then((configured) => {
    secret = String(configured.webhook.secret);
    return String(configured.webhook.id);
  });
  // Ctrl-C at any moment, even while the configuration is being created, removes it.
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const id = await configuring;
    await call('DELETE', `/webhooks/${id}`);
    say(`Removed webhook ${id}.`);
    server.close();
    server.closeAllConnections();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());

  const webhookId = await configuring;
  if (stopping) return;
  say(`Ready. Deliveries of test-mode events go to ${url} (webhook ${webhookId}).`);
  say(`Signing secret: ${secret}`);
  if (forwardTo) say(`Forwarding each verified delivery to ${forwardTo}.`);
  say('Ctrl-C removes the configuration and stops.');
}

void main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
