/**
 * Every operation of the served OpenAPI document, walked as an attacker would (docs/security.md):
 * without credentials, with the /api/v1 prefix in other letter cases, with a trailing and a
 * doubled slash, and with random bodies. Never a 2xx without credentials, never a 5xx; a path
 * spelt any other way is a 404. The document is read from the running service, so a route is
 * covered the day it is added.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStack, type HttpResult } from './helpers/stack';

interface Op {
  method: string;
  /** The OpenAPI path with its parameters filled in. */
  path: string;
  open: boolean;
}

const IDS: Record<string, string> = {
  id: 'pay_01JWALK0000000000000000000',
  delivery_id: 'dlv_01JWALK0000000000000000000',
};

/** The same path spelt otherwise: none of these is a route. */
function misspellings(path: string): string[] {
  const variants = [`${path}/`, path.replace(/^\//, '//'), path.replace(/\/([^/]+)$/, '//$1')];
  if (path.startsWith('/api/v1/')) {
    const rest = path.slice('/api/v1'.length);
    variants.push(`/API/v1${rest}`, `/Api/v1${rest}`, `/api/V1${rest}`, `/API/V1${rest}`, `/api//v1${rest}`);
  } else variants.push(path.toUpperCase());
  return [...new Set(variants)].filter((v) => v !== path);
}

function expectErrorFormat(res: HttpResult, what: string) {
  expect(res.status, what).toBeGreaterThanOrEqual(400);
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
  expect(typeof res.body?.error?.code, what).toBe('string');
  expect(res.body.request_id, what).toBe(res.headers.get('x-request-id'));
}

const jsonBody = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.dictionary(
    fc.constantFrom('amount', 'currency', 'url', 'events', 'mode', 'email', 'password', 'action', 'since', 'enabled'),
    fc.jsonValue({ maxDepth: 2 }),
  ),
);

describe('every documented operation, walked without credentials', () => {
  // High budgets: this test counts refusals by meaning (401, 404), not the throttles'.
  const stack = useStack({ env: { AUTH_FAILURES_PER_MINUTE: '1000000' } });
  let ops: Op[] = [];
  beforeAll(async () => {
    const doc = (await stack.http.get('/api/v1/openapi.json')).body as {
      security: unknown[];
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    ops = Object.entries(doc.paths).flatMap(([template, methods]) =>
      Object.entries(methods).map(([method, op]) => ({
        method: method.toUpperCase(),
        path: template.replace(/\{(\w+)\}/g, (_m, name: string) => IDS[name] ?? 'x_01JWALK0000000000000000000'),
        open: (op.security ?? doc.security).length === 0,
      })),
    );
  });

  it('reads a document with the authenticated operations in it', () => {
    expect(ops.filter((o) => !o.open).length).toBeGreaterThan(30);
    expect(ops.filter((o) => o.open).map((o) => o.path)).toEqual(expect.arrayContaining(['/healthz', '/api/v1/auth/login']));
  });

  it('answers an authenticated operation without credentials 401, never running it', async () => {
    for (const op of ops.filter((o) => !o.open)) {
      const res = await stack.http.call(op.method, op.path, op.method === 'GET' ? {} : { body: {} });
      expectErrorFormat(res, `${op.method} ${op.path}`);
      expect(res.status, `${op.method} ${op.path}`).toBe(401);
    }
  });

  it('answers every operation spelt otherwise (letter case, trailing or doubled slash) 404', async () => {
    for (const op of ops) {
      for (const path of misspellings(op.path)) {
        const res = await stack.http.call(op.method, path, op.method === 'GET' ? {} : { body: {} });
        expectErrorFormat(res, `${op.method} ${path}`);
        expect(res.status, `${op.method} ${path}`).toBe(404);
      }
    }
  });

  it('answers random bodies and queries without a 2xx or a 5xx, on every spelling', async () => {
    const writes = () => ops.filter((o) => o.method !== 'GET');
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.boolean(),
        jsonBody,
        fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 2 }),
        async (pick, misspell, body, query) => {
          const all = writes().concat(ops);
          const op = all[pick % all.length];
          const paths = misspell ? misspellings(op.path) : [op.path];
          const path = paths[pick % paths.length];
          const qs = new URLSearchParams(query).toString();
          const res = await stack.http.call(op.method, qs ? `${path}?${qs}` : path, op.method === 'GET' ? {} : { body });
          const what = `${op.method} ${path} ${JSON.stringify(body)}`;
          if (op.open && !misspell) {
            // The probes and the login: open by design, yet a random body never signs anyone in.
            expect(res.status, what).toBeLessThan(500);
            if (op.method !== 'GET') expectErrorFormat(res, what);
          } else expectErrorFormat(res, what);
        },
      ),
      { numRuns: 300 },
    );
  });
});
