/**
 * A route that declares auth never runs without a caller, whatever is (or is not) mounted in front
 * of it: the registry checks it where the route is defined (docs/security.md).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errorMiddleware } from '../../src/platform/http/httpErrors';
import { Routes } from '../../src/platform/http/registry';
import { createLogger } from '../../src/platform/lib/logger';

describe('the route registry', () => {
  let ran = 0;
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    const routes = new Routes({ prefix: '/api/v1', auth: true });
    routes.add(
      { method: 'get', path: '/things', tag: 't', summary: 's', responses: { 200: { description: 'd', schema: z.object({}) } } },
      (ctx) => {
        ran += 1;
        ctx.body = {};
      },
    );
    const app = new Koa();
    app.use(async (ctx, next) => {
      ctx.state.requestId = 'req_test';
      await next();
    });
    app.use(errorMiddleware(createLogger('silent')));
    // Mounted with no authentication middleware at all: the route itself refuses.
    app.use(routes.router.routes());
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses to run a handler that declares auth without a caller: 401', async () => {
    const res = await fetch(`${base}/things`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    expect(ran).toBe(0);
  });

  it('matches paths exactly: another letter case or a trailing slash is no route', async () => {
    for (const path of ['/Things', '/THINGS', '/things/', '//things']) expect((await fetch(`${base}${path}`)).status, path).toBe(404);
    expect(ran).toBe(0);
  });
});
