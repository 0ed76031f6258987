/**
 * The HTTP front of the plain servers, node:http and no framework: (C) in the benchmark process and
 * (B3)'s front in a process of its own answer the same routes, `POST /payments` and
 * `POST /payments/:id/:action`, JSON in and out.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ClientAction, CLIENT_ACTIONS } from '../../src/payments/paymentTypes.rules';

/** An HTTP status and the JSON body to answer with. */
export type Answer = [number, unknown];

export interface PaymentRoutes {
  create(body: { amount?: number; currency?: string }, req: http.IncomingMessage): Promise<Answer>;
  transition(id: string, action: ClientAction, req: http.IncomingMessage): Promise<Answer>;
}

export interface Listening {
  url: string;
  close(): Promise<void>;
}

const TRANSITION = /^\/payments\/([A-Za-z0-9_]+)\/([a-z]+)$/;

/** Listen on 127.0.0.1:`port` (0: any free port); a handler that throws answers 500 with its message. */
export async function listenForPayments(routes: PaymentRoutes, port = 0): Promise<Listening> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = ([status, body]: Answer) => {
        res.statusCode = status;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(body));
      };
      let work: Promise<Answer>;
      const m = TRANSITION.exec(req.url ?? '');
      if (req.method === 'POST' && req.url === '/payments')
        work = Promise.resolve().then(() => routes.create(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'), req));
      else if (req.method === 'POST' && m && (CLIENT_ACTIONS as readonly string[]).includes(m[2]))
        work = routes.transition(m[1], m[2] as ClientAction, req);
      else work = Promise.resolve([404, { error: 'not_found' }]);
      work.then(answer, (err: unknown) => answer([500, { error: (err as Error).message }]));
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
