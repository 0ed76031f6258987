/**
 * A small typed client over fetch: paths, parameters, bodies and answers typed by schema.d.ts,
 * which openapi-typescript generates from docs/openapi.json (`npm run openapi`). Copy both files.
 */
import type { components, paths } from './schema';

type Method = 'get' | 'post' | 'patch' | 'delete';
type OperationOf<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON answer of an operation's 2xx responses. */
export type Answer<P extends keyof paths, M extends Method> =
  OperationOf<P, M> extends { responses: infer R } ? { [S in keyof R]: S extends 200 | 201 | 202 ? JsonOf<R[S]> : never }[keyof R] : never;
type PathParams<O> = O extends { parameters: { path: infer X } } ? (X extends Record<string, string> ? X : never) : never;
type Query<O> = O extends { parameters: { query?: infer X } } ? X : never;
type Body<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

export type Options<P extends keyof paths, M extends Method> = {
  query?: Query<OperationOf<P, M>>;
  body?: Body<OperationOf<P, M>>;
  /** Send the same key when you retry: the first answer is replayed (POST only). */
  idempotencyKey?: string;
} & ([PathParams<OperationOf<P, M>>] extends [never] ? { params?: never } : { params: PathParams<OperationOf<P, M>> });

export type ErrorResponse = components['schemas']['ErrorResponse'];

/** A refusal, with the error format's code to branch on. */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorResponse,
  ) {
    super(`${status} ${body.error.code}: ${body.error.message}`);
  }
  get code() {
    return this.body.error.code;
  }
}

export function createClient({ baseUrl, apiKey, token }: { baseUrl: string; apiKey?: string; token?: string }) {
  return async function request<P extends keyof paths, M extends Method & keyof paths[P]>(
    method: M,
    path: P,
    ...[options]: [keyof PathParams<OperationOf<P, M>>] extends [never] ? [Options<P, M>?] : [Options<P, M>]
  ): Promise<Answer<P, M>> {
    const { params, query, body, idempotencyKey } = (options ?? {}) as {
      params?: Record<string, string>;
      query?: Record<string, string | number | boolean | undefined>;
      body?: unknown;
      idempotencyKey?: string;
    };
    const url = new URL(
      String(path).replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(params?.[name] ?? '')),
      baseUrl,
    );
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = {};
    if (apiKey) headers['X-API-Key'] = apiKey;
    if (token) headers.Authorization = `Bearer ${token}`;
    if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(url, { method: method.toUpperCase(), headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json: unknown = await res.json();
    if (!res.ok) throw new ApiRequestError(res.status, json as ErrorResponse);
    return json as Answer<P, M>;
  };
}
