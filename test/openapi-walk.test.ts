/**
 * Every operation of the served OpenAPI document, walked as an attacker would (docs/security.md):
 * without credentials, with the /api/v1 prefix in other letter cases, with a trailing and a
 * doubled slash, and with random bodies; with HEAD, OPTIONS and undocumented methods; with a
 * percent-encoded letter, a `/./` segment or an encoded slash in the path. Never a 2xx without
 * credentials, never a 5xx; a path spelt any other way is a 404. The document is read from the
 * running service, so a route is covered the day it is added.
 */
import http from 'node:http';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStack, type HttpResult } from './helpers/stack';

interface Op {
  method: string;
  /** The OpenAPI path with its parameters filled in. */
  path: string;
  template: string;
  /** Every method the document has for this path. */
  documented: string[];
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

/** Other spellings that may decode or normalise to the path: an encoded letter, a `/./` segment, an encoded slash in an id. */
function encodings(path: string, template: string): string[] {
  const encoded = (segment: string) => segment.replace(/[a-z](?=[^a-z]*$)/i, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const [, first, ...rest] = path.split('/');
  const variants = [['', encoded(first), ...rest].join('/'), `/./${path.slice(1)}`, path.replace(/\/([^/]+)$/, '/./$1')];
  if (path.startsWith('/api/v1/')) {
    const [, , , resource, ...tail] = path.split('/');
    variants.push(['', 'api', 'v1', encoded(resource), ...tail].join('/'), `/api/./v1/${path.slice('/api/v1/'.length)}`);
  }
  // An id with an encoded slash: never a path of its own, never a 5xx.
  if (template.includes('{'))
    variants.push(path.replace(/(_01JWALK0+)(?=\/|$)/, '$1%2Fdeposit'), path.replace(/(_01JWALK0+)(?=\/|$)/, '$1%2F..%2F..'));
  return [...new Set(variants)].filter((v) => v !== path);
}

/** A request with the path sent as written (fetch would resolve `/./` first). */
function rawCall(base: string, method: string, path: string): Promise<HttpResult> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          /* not JSON: keep the text */
        }
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
        resolve({ status: res.statusCode ?? 0, body, headers });
      });
    });
    req.on('error', reject);
    req.end();
  });
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
        template,
        documented: Object.keys(methods).map((m) => m.toUpperCase()),
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

  it('answers HEAD as GET is answered: without credentials never a 2xx, and never a 5xx', async () => {
    for (const op of ops) {
      const res = await rawCall(stack.url, 'HEAD', op.path);
      const what = `HEAD ${op.path}`;
      expect(res.status, what).toBeLessThan(500);
      // HEAD runs GET's route, authentication included; an open GET (the probes, the document) may answer it.
      if (op.open && op.documented.includes('GET')) continue;
      expect(res.status, what).toBeGreaterThanOrEqual(400);
      if (!op.open && op.documented.includes('GET')) expect(res.status, what).toBe(401);
    }
  });

  it('answers OPTIONS 405 in the error format naming the allowed methods, and an undocumented PUT or DELETE without a 2xx', async () => {
    for (const op of ops) {
      const options = await stack.http.call('OPTIONS', op.path);
      expectErrorFormat(options, `OPTIONS ${op.path}`);
      expect([options.status, options.body.error.code], `OPTIONS ${op.path}`).toEqual([405, 'method_not_allowed']);
      expect(options.headers.get('allow')?.split(', '), `OPTIONS ${op.path}`).toEqual(expect.arrayContaining(op.documented));
      // Another template may take the method (DELETE /webhooks/{id} for /webhooks/configure): 405 or its 401.
      for (const method of ['PUT', 'DELETE'].filter((m) => !op.documented.includes(m))) {
        const res = await stack.http.call(method, op.path);
        expectErrorFormat(res, `${method} ${op.path}`);
        expect([401, 405], `${method} ${op.path}`).toContain(res.status);
        if (res.status === 405) expect(res.headers.get('allow'), `${method} ${op.path}`).toBeTruthy();
      }
    }
  });

  it('answers an encoded letter, a /./ segment or an encoded slash in an id without a 2xx or a 5xx', async () => {
    for (const op of ops) {
      for (const path of encodings(op.path, op.template)) {
        for (const method of [op.method, 'HEAD', 'OPTIONS']) {
          const res = await rawCall(stack.url, method, path);
          const what = `${method} ${path}`;
          expect(res.status, what).toBeGreaterThanOrEqual(400);
          expect(res.status, what).toBeLessThan(500);
          if (method !== 'HEAD') expectErrorFormat(res, what);
        }
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
