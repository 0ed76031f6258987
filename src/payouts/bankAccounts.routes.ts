/** A recipient's bank account routes (docs/payouts.md, "Bank accounts"): add, list, delete. Parse, call one use case, respond. */
import { scopeOf } from '../tenants/tenancy.rules';
import type { BankAccountsService } from './bankAccounts.service';
import { bankAccountView } from './bankAccount.view';
import { callOf } from '../platform/http/context';
import { wholeList } from '../platform/http/lists';
import { Routes } from '../platform/http/registry';
import { BankAccount, BankAccountList, CreateBankAccountRequest, DeletedResponse } from '../platform/http/schemas';

export function bankAccountRoutes(bankAccounts: BankAccountsService) {
  const routes = new Routes({ prefix: '/api/v1', auth: true });
  routes.param('id', 'recipient', 'The recipient id (rcp_…)');
  routes.param('ba', 'bank account', 'The bank account id (ba_…), as POST or GET /api/v1/recipients/:id/bank_accounts answered it');
  const tag = 'Recipients';

  routes.add(
    {
      method: 'post',
      path: '/recipients/:id/bank_accounts',
      tag,
      summary: 'Add a bank account to a recipient',
      description:
        'An IBAN (mod 97 and the country format) or, for a US account in USD, a routing number (ABA checksum) and an account number. ' +
        'The full number is stored sealed and never shown again: the answer shows last4 and a fingerprint. The first account in a ' +
        'currency becomes its default. An erased recipient takes none (409 recipient_erased).',
      body: CreateBankAccountRequest,
      responses: { 201: { description: 'The bank account, status new', schema: BankAccount } },
      errors: ['recipient_erased'],
    },
    async (ctx, { body }) => {
      ctx.status = 201;
      ctx.body = bankAccountView(await bankAccounts.create(callOf(ctx.state), ctx.params.id, body));
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/recipients/:id/bank_accounts',
      tag,
      summary: "List a recipient's bank accounts, oldest first",
      responses: { 200: { description: "The recipient's bank accounts", schema: BankAccountList } },
    },
    async (ctx) => {
      const rows = await bankAccounts.list(scopeOf(ctx.state.principal!), ctx.params.id);
      ctx.body = wholeList(rows.map(bankAccountView));
    },
  );

  routes.add(
    {
      method: 'delete',
      path: '/recipients/:id/bank_accounts/:ba',
      tag,
      summary: 'Delete a bank account',
      description:
        'Its number is erased; payouts that name it keep its id. If it was the default in its currency, the oldest payable account there takes over. ' +
        'Refused (409 bank_account_in_use) while a live payout to it waits to go out in a credit transfer file.',
      responses: { 200: { description: 'Deleted', schema: DeletedResponse } },
      errors: ['bank_account_in_use'],
    },
    async (ctx) => {
      await bankAccounts.remove(scopeOf(ctx.state.principal!), ctx.params.id, ctx.params.ba);
      ctx.body = { id: ctx.params.ba, deleted: true };
    },
  );

  return routes;
}
