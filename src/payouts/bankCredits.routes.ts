/**
 * Credits booked at the custody account (docs/bank.md, "Unapplied credits"): a tenant's list, and test
 * mode's simulated transfer, booked through the same matching as the bank's files. Parse, call one use
 * case, respond.
 */
import { scopeOf } from '../tenants/tenancy.rules';
import type { BankCreditsService } from './bankCredits.service';
import { bankCreditView } from './bankCredit.view';
import { callOf } from '../platform/http/context';
import { listPage } from '../platform/http/lists';
import { Routes } from '../platform/http/registry';
import {
  ApplyBankCreditRequest,
  BankCredit,
  BankCreditList,
  ListBankCreditsQuery,
  SimulatedTransfer,
  SimulatedTransferRequest,
  pageRequestOf,
} from '../platform/http/schemas';

export function bankCreditRoutes(credits: BankCreditsService) {
  const routes = new Routes({ prefix: '/api/v1', auth: true });
  routes.param('id', 'bank credit', 'The bank credit id (bc_…), as GET /api/v1/bank_credits answered it');

  routes.add(
    {
      method: 'get',
      path: '/bank_credits',
      tag: 'Bank credits',
      summary: "List the credits the bank booked for this account's payments, newest first",
      description:
        'Credits whose reference names one of your payments: the part a payment took (applied), what funds nothing (unapplied: another currency, a closed payment, the excess of an overpayment, what a payment short at its deadline had received) and what was sent back (returned).',
      query: ListBankCreditsQuery,
      responses: { 200: { description: 'A page of bank credits', schema: BankCreditList } },
    },
    async (ctx, { query: q }) => {
      const page = await credits.list(scopeOf(ctx.state.principal!), { ...pageRequestOf(q), status: q.status });
      ctx.body = listPage({ data: page.rows.map(bankCreditView), hasMore: page.hasMore });
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/bank_credits/:id/apply',
      tag: 'Bank credits',
      summary: 'Apply an unapplied credit to a payment funded by bank transfer',
      description:
        "The payment must be of this account and mode, in the credit's currency, funded by bank_transfer, pending_deposit and lacking at least the credit's amount (else 409): it takes the credit as it takes a transfer (deposited once it has its amount; else partially funded).",
      body: ApplyBankCreditRequest,
      responses: { 200: { description: 'The credit, status applied', schema: BankCredit } },
      errors: ['invalid_transition', 'bank_credit_not_unapplied'],
    },
    async (ctx, { body }) => {
      const call = callOf(ctx.state);
      ctx.body = bankCreditView(await credits.apply({ principal: call.principal, requestId: call.requestId }, ctx.params.id, body.payment));
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/bank_credits/:id/return',
      tag: 'Bank credits',
      summary: 'Return an unapplied credit to the account that sent it',
      description:
        "Sent back to the debtor account the bank's entry named, in the next pain.001 file with its own EndToEndId, and answered by the bank like a payout: a rejection leaves the credit unapplied again. In test mode the simulated bank pays it at once. Only this account's unapplied credits (else 404, or 409 when applied or returned already, or when the entry named no account to send it back to).",
      responses: { 200: { description: 'The credit, status returned', schema: BankCredit } },
      errors: ['bank_credit_not_unapplied', 'bank_credit_not_returnable'],
    },
    async (ctx) => {
      const call = callOf(ctx.state);
      ctx.body = await credits.returnCredit({ principal: call.principal, resourceId: call.resourceId }, ctx.params.id);
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/test_helpers/bank_transfers',
      tag: 'Test helpers',
      summary: 'Book a simulated bank transfer to the custody account (test mode)',
      description:
        "A credit booked today with the reference, matched as the bank's are (docs/bank.md): a bank_transfer payment of yours pending its deposit with that funding_reference takes it (exact: deposited; less: partially funded; more: deposited, the excess unapplied); anything else is an unapplied credit of yours. In live mode: 400.",
      body: SimulatedTransferRequest,
      responses: { 201: { description: 'What the credit became', schema: SimulatedTransfer } },
    },
    async (ctx, { body }) => {
      const call = callOf(ctx.state);
      const booked = await credits.simulateTransfer(
        { principal: call.principal, resourceId: call.resourceId, requestId: call.requestId },
        body,
      );
      ctx.status = 201;
      ctx.body = { object: 'bank_transfer', bank_credits: booked.credits.map(bankCreditView) };
    },
  );
  return routes;
}
