/** The recipient routes (docs/concepts.md, "Recipients"): create, list, read, change, verification. Parse, call one use case, respond. */
import { scopeOf } from '../tenants/tenancy.rules';
import type { RecipientsService } from './recipients.service';
import { recipientView } from './recipient.view';
import { callOf } from '../platform/http/context';
import { listPage } from '../platform/http/lists';
import { Routes } from '../platform/http/registry';
import {
  CreateRecipientRequest,
  AsOfQuery,
  ListRecipientsQuery,
  Recipient,
  RecipientBalance,
  RecipientList,
  RecipientVerificationRequest,
  UpdateRecipientRequest,
  pageRequestOf,
} from '../platform/http/schemas';

export function recipientRoutes(recipients: RecipientsService) {
  const routes = new Routes({ prefix: '/api/v1', auth: true });
  routes.param('id', 'recipient', 'The recipient id (rcp_…), as POST /api/v1/recipients or GET /api/v1/recipients answered it');
  const tag = 'Recipients';

  routes.add(
    {
      method: 'post',
      path: '/recipients',
      tag,
      summary: 'Create a recipient (unverified)',
      body: CreateRecipientRequest,
      responses: { 201: { description: 'The recipient, verification status unverified', schema: Recipient } },
    },
    async (ctx, { body }) => {
      ctx.status = 201;
      ctx.body = recipientView(await recipients.create(callOf(ctx.state), body));
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/recipients',
      tag,
      summary: 'List recipients, newest first',
      query: ListRecipientsQuery,
      responses: { 200: { description: 'A page of recipients', schema: RecipientList } },
    },
    async (ctx, { query: q }) => {
      const page = await recipients.list(scopeOf(ctx.state.principal!), pageRequestOf(q));
      ctx.body = listPage({ data: page.data.map(recipientView), hasMore: page.hasMore });
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/recipients/:id',
      tag,
      summary: 'Read a recipient',
      responses: { 200: { description: 'The recipient', schema: Recipient } },
    },
    async (ctx) => {
      ctx.body = recipientView(await recipients.get(scopeOf(ctx.state.principal!), ctx.params.id));
    },
  );

  routes.add(
    {
      method: 'patch',
      path: '/recipients/:id',
      tag,
      summary: "Change a recipient's e-mail, name or metadata",
      description:
        'A change is a recipient.updated event. Payments already created keep the e-mail they were created with. ' +
        'An erased recipient takes no change (409 recipient_erased).',
      body: UpdateRecipientRequest,
      responses: { 200: { description: 'The recipient', schema: Recipient } },
      errors: ['recipient_erased'],
    },
    async (ctx, { body }) => {
      ctx.body = recipientView(await recipients.update(scopeOf(ctx.state.principal!), ctx.params.id, body));
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/recipients/:id/verification',
      tag,
      summary: "Report a recipient's verification",
      description:
        'The platform (or its identity-verification vendor, through it) reports the outcome; the service examines no documents. ' +
        'payouts_enabled becomes true exactly when status is verified and requirements.past_due is empty; when it does, one ledger ' +
        "entry moves everything in the recipient's pending balances to available (docs/money.md). A change is a recipient.updated event. " +
        'An erased recipient takes no report (409 recipient_erased).',
      body: RecipientVerificationRequest,
      responses: { 200: { description: 'The recipient', schema: Recipient } },
      errors: ['recipient_erased'],
    },
    async (ctx, { body }) => {
      const report = { status: body.status, requirements: body.requirements, disabledReason: body.disabled_reason };
      ctx.body = recipientView(await recipients.verify(scopeOf(ctx.state.principal!), ctx.params.id, report));
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/recipients/:id/redact',
      tag,
      summary: "Erase a recipient's personal data",
      description:
        'Once nothing is pending, available or in transit for it, no paid payout of its is inside its 90-day return window ' +
        '(a bank may still return it: the 409 names the payout and when the window closes) and no payment not yet released, ' +
        'cancelled or refunded names it (otherwise 409 recipient_in_use): its e-mail, name and metadata become "[redacted]" everywhere the service keeps them ' +
        '(the recipient, its events’ delivery bodies, stored idempotent answers). Its id, country, verification and amounts stay; ' +
        'payments that named it keep their own recipient_email until they are redacted themselves. Idempotent. Once erased, it ' +
        'takes no more changes, verification reports, bank accounts, payments or payouts (409 recipient_erased).',
      responses: { 200: { description: 'The recipient, erased', schema: Recipient } },
      errors: ['recipient_in_use'],
    },
    async (ctx) => {
      ctx.body = recipientView(await recipients.redact(scopeOf(ctx.state.principal!), ctx.params.id));
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/recipients/:id/balance',
      tag,
      summary: "A recipient's balances per currency",
      description:
        'pending (released while its payouts were not enabled), available, in_transit and paid_out, from its own ledger accounts ' +
        '(recipient:rcp_…:pending and so on, docs/money.md); with as_of, as they stood at that instant.',
      query: AsOfQuery,
      responses: { 200: { description: 'Its balances', schema: RecipientBalance } },
    },
    async (ctx, { query }) => {
      const asOf = query.as_of ? new Date(query.as_of) : undefined;
      ctx.body = await recipients.balance(scopeOf(ctx.state.principal!), ctx.params.id, asOf);
    },
  );

  return routes;
}
