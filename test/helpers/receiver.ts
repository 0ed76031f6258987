import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  body: any;
  /** The sender's port on loopback (which process sent it can be told from it). */
  remotePort?: number;
}

/**
 * A real HTTP receiver on loopback. `respond` decides each answer: a status code, or 'hang' to
 * hold the request open until `release()` (or forever, so the sender's time-out fires).
 */
export async function startReceiver(respond: (n: number, req: Received) => number | 'hang' = () => 200) {
  const received: Received[] = [];
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = undefined;
      }
      const entry = { headers: req.headers, raw, body, remotePort: req.socket.remotePort };
      received.push(entry);
      const answer = respond(received.length, entry);
      if (answer === 'hang') {
        held.push(res);
        return;
      }
      res.writeHead(answer, { 'Content-Type': 'application/json' });
      res.end(answer < 300 ? '{"received":true}' : '{"error":"nope"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received,
    release() {
      for (const res of held.splice(0)) if (!res.writableEnded) res.writeHead(200).end('{"received":true}');
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A receiver that is down (503 to everything) until `comeBack()`, then answers 200. */
export async function startDownReceiver() {
  let up = false;
  const receiver = await startReceiver(() => (up ? 200 : 503));
  return {
    ...receiver,
    comeBack() {
      up = true;
    },
  };
}
