/**
 * The HTTP client every closed-loop client uses, for the service (A) and the plain server (C)
 * alike: undici's `request` on one keep-alive agent, JSON in and out, each call timed.
 */
import { Agent, request } from 'undici';
import type { Recorder } from './stats';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly path: string,
    body: string,
  ) {
    super(`HTTP ${status} on ${path}: ${body.slice(0, 200)}`);
  }
}

export class JsonClient {
  private readonly agent = new Agent({ connections: 256, keepAliveTimeout: 4000, pipelining: 1 });

  constructor(
    private readonly baseUrl: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  /** One request; its duration goes to `rec` under `name` whatever the outcome; non-2xx throws. */
  async call<T = any>(rec: Recorder, name: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const started = performance.now();
    const res = await request(this.baseUrl + path, {
      method,
      dispatcher: this.agent,
      headers: { ...this.headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.body.text();
    rec.add(name, performance.now() - started);
    if (res.statusCode < 200 || res.statusCode >= 300) throw new HttpError(res.statusCode, path, text);
    return JSON.parse(text) as T;
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
