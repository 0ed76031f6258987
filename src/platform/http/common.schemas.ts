/** Shared by every resource: client text, list queries and envelopes, the probes' and every error's answer. */
import { z } from 'zod';
import { component } from './components';
import { ERROR_CODES } from './errorCatalogue';
import { idPattern } from './parse';
import * as S from './samples';

/**
 * Text a client sends, as PostgreSQL can store and every client can read back: well-formed Unicode
 * (no lone surrogate, which `.slice()` leaves of a cut emoji and PostgreSQL refuses), and no NUL or
 * other control characters (C0 but tab and newlines, DEL, C1).
 */
export const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => s.isWellFormed(), 'must be well-formed Unicode (it contains a lone surrogate)')
    .regex(/^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$/, 'must not contain control characters');

export const email = z.email({ message: 'must be a valid e-mail address' }).max(254);

export const reason = text(500).nullable().optional().describe('Why; recorded in the payment history');

interface Cursors {
  starting_after?: string;
  ending_before?: string;
}

export const cursor = (idPrefix: string, what: string) =>
  z
    .string()
    .regex(new RegExp(`^${idPrefix}_[0-9A-Za-z]{1,64}$`), `must be ${what} id`)
    .optional();

/** A list answer (src/platform/http/lists.ts builds it): one page, or (`wholeListOf`) every item at once. */
export const listOf = <T extends z.ZodType>(item: T) => z.object({ object: z.literal('list'), data: z.array(item), has_more: z.boolean() });

export const wholeListOf = <T extends z.ZodType>(item: T) =>
  z.object({ object: z.literal('list'), data: z.array(item), has_more: z.literal(false) });

/** A payment id as a list filter: the rule of every id in a path (src/platform/http/parse.ts), for a payment. */
export const paymentIdFilter = z.string().regex(idPattern('pay'), 'must be a payment id').optional();

/** Every list: newest first, `limit`, and a cursor either way (not both). */
export const listQuery = <S extends z.ZodRawShape>(idPrefix: string, what: string, filters: S) =>
  z
    .strictObject({
      limit: z.coerce.number().int().min(1).max(100).default(20).describe('Page size, 1 to 100 (default 20)'),
      starting_after: cursor(idPrefix, what).describe(`${what} id: the page after it (older items)`),
      ending_before: cursor(idPrefix, what).describe(`${what} id: the page before it (newer items)`),
      created_gte: z.iso.datetime({ offset: true }).optional().describe('Only items created at or after this ISO 8601 time'),
      created_lte: z.iso.datetime({ offset: true }).optional().describe('Only items created at or before this ISO 8601 time'),
      ...filters,
    })
    .refine((q) => !((q as Cursors).starting_after && (q as Cursors).ending_before), {
      message: 'use starting_after or ending_before, not both',
      path: ['ending_before'],
    });

/** A list query's cursors, size and created range, as the repositories take them. */
export function pageRequestOf(q: {
  limit: number;
  starting_after?: string;
  ending_before?: string;
  created_gte?: string;
  created_lte?: string;
}) {
  return {
    limit: q.limit,
    startingAfter: q.starting_after,
    endingBefore: q.ending_before,
    createdGte: q.created_gte ? new Date(q.created_gte) : undefined,
    createdLte: q.created_lte ? new Date(q.created_lte) : undefined,
  };
}

export const DeletedResponse = component('DeletedResponse', z.object({ id: z.string(), deleted: z.literal(true) }), {
  id: S.webhook.id,
  deleted: true,
});

export const Health = component('Health', z.object({ status: z.literal('ok') }), { status: 'ok' });

const check = z.enum(['ok', 'unavailable']);

export const Readiness = component('Readiness', z.object({ status: check, checks: z.object({ postgres: check, temporal: check }) }), {
  status: 'ok',
  checks: { postgres: 'ok', temporal: 'ok' },
});

export const ErrorResponse = component(
  'ErrorResponse',
  z.object({
    error: z.object({
      code: z.enum(ERROR_CODES).describe('Stable: branch on it (the message is for people)'),
      message: z.string(),
      details: z
        .array(z.object({ field: z.string(), message: z.string() }))
        .optional()
        .or(z.record(z.string(), z.unknown()))
        .optional(),
    }),
    request_id: z.string().describe('The X-Request-Id of the answer: quote it when you ask us about a request'),
  }),
);
