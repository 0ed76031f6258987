/**
 * The reference works in Swagger's "Try it out": every request and response has an example that
 * its own schema accepts, and every parameter says what it is. The document is the pure function of
 * the routes' definitions the API serves (test/openapi-document.test.ts posts its examples).
 */
import { describe, expect, it } from 'vitest';
import { documentedOperations } from '../../tools/documentedOperations';
import { ERRORS } from '../../src/platform/http/errorCatalogue';
import { openApiDocument } from '../../src/platform/http/openapi';
import * as S from '../../src/platform/http/schemas';
import { loadConfig } from '../../src/platform/config';

interface Content {
  schema: object;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Op {
  parameters?: { name: string; in: string; description?: string }[];
  requestBody?: { required?: boolean; content: Record<string, Content> };
  responses: Record<string, { description: string; content?: Record<string, Content> }>;
}

// The document GET /api/v1/openapi.json serves (test/openapi-document.test.ts checks they are the same).
const config = loadConfig({});
const operations = documentedOperations(config);
const paths = (openApiDocument(operations) as { paths: Record<string, Record<string, Op>> }).paths;

describe('OpenAPI examples and descriptions', () => {
  it('every request body and response has an example, and every parameter a description', () => {
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        for (const p of op.parameters ?? []) if (!p.description) missing.push(`${where}: parameter ${p.name} has no description`);
        const body = op.requestBody?.content['application/json'];
        if (body && body.example === undefined) missing.push(`${where}: request body has no example`);
        for (const [status, r] of Object.entries(op.responses)) {
          const content = r.content?.['application/json'];
          if (!content) missing.push(`${where}: ${status} has no schema`);
          else if (content.example === undefined && !content.examples) missing.push(`${where}: ${status} has no example`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('each example is accepted by the zod schema that parses or shapes it', () => {
    const refused: string[] = [];
    for (const op of operations) {
      const doc = paths[op.openApiPath][op.method];
      const where = `${op.method.toUpperCase()} ${op.openApiPath}`;
      if (op.bodySchema) {
        const result = op.bodySchema.safeParse(doc.requestBody?.content['application/json'].example);
        if (!result.success) refused.push(`${where} request: ${result.error.message}`);
      }
      for (const [status, r] of Object.entries(op.responses)) {
        const result = r.schema.safeParse(doc.responses[status].content?.['application/json'].example);
        if (!result.success) refused.push(`${where} ${status}: ${result.error.message}`);
      }
    }
    expect(refused).toEqual([]);
  });

  it('a body is required only where the API refuses none (it reads a missing body as {}); each error answer names its codes, one example each', () => {
    const wrong: string[] = [];
    for (const op of operations) {
      const doc = paths[op.openApiPath][op.method];
      const where = `${op.method.toUpperCase()} ${op.openApiPath}`;
      if (op.bodySchema && doc.requestBody?.required !== !op.bodySchema.safeParse({}).success) wrong.push(`${where}: requestBody.required`);
      for (const code of op.errorCodes) {
        const response = doc.responses[String(ERRORS[code].status)];
        const content = response.content?.['application/json'];
        const examples = content?.examples ? Object.values(content.examples).map((e) => e.value) : [content?.example];
        const codes = examples.map((e) => S.ErrorResponse.parse(e).error.code);
        if (!response.description.includes(code) || !codes.includes(code)) wrong.push(`${where} ${code}`);
      }
    }
    expect(wrong).toEqual([]);
    const transition = paths['/api/v1/payments/{id}/release'].post;
    expect(transition.requestBody?.required).toBe(false);
    expect(paths['/api/v1/payments'].post.requestBody?.required).toBe(true);
    // A create has no status to refuse a transition from: its 409s are the Idempotency-Key's, the open payments' quota, a rejected recipient and an erased one.
    const createConflicts = paths['/api/v1/payments'].post.responses['409'].content?.['application/json'].examples ?? {};
    expect(Object.values(createConflicts).map((e) => S.ErrorResponse.parse(e.value).error.code)).toEqual(
      expect.arrayContaining(['idempotency_conflict', 'open_payment_limit_reached', 'recipient_not_payable', 'recipient_erased']),
    );
    expect(Object.keys(createConflicts)).toHaveLength(4);
  });
});
