/** Start-up pieces shared by `npm start`, `npm run api`, `npm run worker` and the tests. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import type { Knex } from 'knex';
import { createApp } from './api/app';
import type { Config } from './config';
import type { Logger } from './lib/logger';
import { listenOn } from './lib/net';

export async function connectClient(address: string, namespace: string): Promise<Client> {
  const connection = await Connection.connect({ address });
  return new Client({ connection, namespace });
}

export interface ApiServer {
  url: string;
  server: http.Server;
  /** Stop accepting connections and let requests in flight finish. */
  close(): Promise<void>;
}

export async function startApiServer(deps: { db: Knex; temporal: Client; config: Config; logger: Logger }, port: number, host = '127.0.0.1'): Promise<ApiServer> {
  const app = createApp(deps);
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 5000;
  await listenOn(server, port, host, 'PORT');
  const { port: actual } = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    url: `http://${shownHost}:${actual}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
