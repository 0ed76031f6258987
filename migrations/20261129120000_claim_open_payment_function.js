// @ts-check
/**
 * A create's place among its account's open payments (docs/security.md, "Quotas";
 * src/payments/openPayments.repository.ts) in one statement: the count row's lock is held for the function only,
 * not across a transaction's client round trips, so an account's concurrent creates queue on it for
 * a statement each. The same steps as before, in the same order: the count row made and locked, a
 * retry that already claimed or wrote its payment keeps its place, else the open payments and the
 * live claims are counted against the limit and the claim is added.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.raw(`
    create function claim_open_payment(p_account_id text, p_livemode boolean, p_payment_id text, p_limit integer, p_claim_minutes integer)
    returns boolean language plpgsql volatile as $$
    declare
      counted integer;
      claims bigint;
    begin
      insert into open_payment_counts (account_id, livemode, "open") values (p_account_id, p_livemode, 0)
      on conflict (account_id, livemode) do nothing;
      select c."open" into counted from open_payment_counts c
       where c.account_id = p_account_id and c.livemode = p_livemode for update;
      if exists (select 1 from payment_claims where payment_id = p_payment_id)
         or exists (select 1 from payments where id = p_payment_id) then
        return true;
      end if;
      select count(*) into claims from payment_claims
       where account_id = p_account_id and livemode = p_livemode
         and created_at > now() - make_interval(mins => p_claim_minutes);
      if counted + claims >= p_limit then
        return false;
      end if;
      insert into payment_claims (account_id, livemode, payment_id) values (p_account_id, p_livemode, p_payment_id);
      return true;
    end $$`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('drop function if exists claim_open_payment(text, boolean, text, integer, integer)');
};
