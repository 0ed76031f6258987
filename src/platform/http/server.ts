/** The API's HTTP server: Koa behind node:http, with the API's error format even for malformed HTTP. */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { metricsServer } from '../lib/metrics';
import { listenOn } from '../lib/net';
import { createApp } from './app';
import type { AppDeps } from './context';

export interface ApiServer {
  url: string;
  server: http.Server;
  /** Where this process serves /metrics (API_METRICS_PORT), never on the public port. */
  metricsUrl: string;
  /** Stop accepting connections and let requests in flight finish. */
  close(): Promise<void>;
}

/**
 * Requests Node refuses before Koa sees them (headers over 16 KB, malformed HTTP) still get the
 * API's error format, not a bare status line.
 */
function answerMalformedRequest(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) return void socket.destroy();
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const [status, reason, code, message] = tooLarge
    ? [431, 'Request Header Fields Too Large', 'request_header_fields_too_large', 'request headers are limited to 16 KB']
    : [400, 'Bad Request', 'invalid_request', 'the request is not valid HTTP'];
  const requestId = `req_${randomUUID().replace(/-/g, '')}`;
  const body = JSON.stringify({ error: { code, message }, request_id: requestId });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Listen, naming the setting when the port is taken (a start-up error, not a crash). */
async function listen(server: http.Server, port: number, host: string, setting: string): Promise<string> {
  const actual = await listenOn(server, port, host, setting);
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${shownHost}:${actual}`;
}

const closeServer = (server: http.Server) =>
  new Promise<void>((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeIdleConnections();
  });

/** The API's HTTP server (and its /metrics listener on API_METRICS_PORT), listening. */
export async function startApiServer(deps: AppDeps, port: number, host = '127.0.0.1'): Promise<ApiServer> {
  const app = createApp(deps);
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 5000;
  server.on('clientError', answerMalformedRequest);
  const metrics = metricsServer();
  let url: string;
  let metricsUrl: string;
  try {
    metricsUrl = await listen(metrics, deps.config.API_METRICS_PORT, host, 'API_METRICS_PORT');
    url = await listen(server, port, host, 'PORT');
  } catch (err) {
    await Promise.all([closeServer(metrics), closeServer(server)]);
    throw err;
  }
  return {
    url,
    server,
    metricsUrl,
    close: async () => {
      await Promise.all([closeServer(server), closeServer(metrics)]);
    },
  };
}
