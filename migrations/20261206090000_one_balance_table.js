// @ts-check
/**
 * One balance table (docs/money.md, "The book"): `ledger_account_balances` keeps a row per address
 * of every account — a payment's custody, a recipient's, and each tenant's kinds (`payer_deposits`,
 * `recipient_payable`, `payer_refunds`, `platform_fees`, per account, mode and currency) — with its
 * kind. `ledger_balances`, the per-kind totals the writers kept beside it, becomes a view: their
 * GROUP BY. Below zero stays refused for a party's account (a payment's custody, a recipient's) only.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.raw('alter table ledger_account_balances add column ledger_account text');
  await knex.raw(`update ledger_account_balances set ledger_account = case
      when address like 'escrow:%' then 'custody'
      else 'recipient_' || split_part(address, ':', 3) end`);
  await knex.raw('alter table ledger_account_balances alter column ledger_account set not null');
  // A tenant's kinds share their address with every other tenant's: the key names the account and mode.
  await knex.raw('alter table ledger_account_balances drop constraint ledger_account_balances_pkey');
  await knex.raw('alter table ledger_account_balances add primary key (address, currency, exponent, account_id, livemode)');
  await knex.raw('create index ledger_account_balances_tenant on ledger_account_balances (account_id, livemode)');
  // A tenant's kinds go below zero by design (payer_deposits is what was paid in, negated).
  await knex.raw(`
    create or replace function ledger_account_not_negative() returns trigger language plpgsql as $$
    begin
      if new.balance_minor < 0 and (new.address like 'escrow:%' or new.address like 'recipient:%') then
        raise exception 'ledger account % (%) would go below zero: %', new.address, new.currency, new.balance_minor
          using errcode = 'check_violation', constraint = 'ledger_account_balances_not_negative';
      end if;
      return null;
    end $$`);
  // The tenants' kinds, from their postings (the source of truth; equal to ledger_balances where the check holds).
  await knex.raw(`
    insert into ledger_account_balances (address, currency, exponent, account_id, livemode, ledger_account, balance_minor)
    select p.address, e.currency, e.exponent, e.account_id, e.livemode, p.ledger_account, sum(p.amount_minor)
    from ledger_postings p join ledger_entries e on e.id = p.entry_id
    where not (p.address like 'escrow:%' or p.address like 'recipient:%')
    group by p.address, e.currency, e.exponent, e.account_id, e.livemode, p.ledger_account`);
  await knex.raw('drop table ledger_balances');
  await knex.raw(`
    create view ledger_balances as
    select account_id, livemode, currency, exponent, ledger_account, sum(balance_minor)::bigint as balance_minor
    from ledger_account_balances
    group by account_id, livemode, currency, exponent, ledger_account`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('drop view ledger_balances');
  await knex.schema.createTable('ledger_balances', (t) => {
    t.text('account_id').notNullable();
    t.boolean('livemode').notNullable();
    t.text('currency').notNullable();
    t.smallint('exponent').notNullable();
    t.text('ledger_account').notNullable();
    t.bigInteger('balance_minor').notNullable();
    t.primary(['account_id', 'livemode', 'currency', 'exponent', 'ledger_account']);
  });
  await knex.raw(`
    insert into ledger_balances (account_id, livemode, currency, exponent, ledger_account, balance_minor)
    select account_id, livemode, currency, exponent, ledger_account, sum(balance_minor)
    from ledger_account_balances group by account_id, livemode, currency, exponent, ledger_account`);
  await knex.raw(`delete from ledger_account_balances where not (address like 'escrow:%' or address like 'recipient:%')`);
  await knex.raw('drop index ledger_account_balances_tenant');
  await knex.raw('alter table ledger_account_balances drop constraint ledger_account_balances_pkey');
  await knex.raw('alter table ledger_account_balances add primary key (address, currency, exponent)');
  await knex.raw('alter table ledger_account_balances drop column ledger_account');
};
