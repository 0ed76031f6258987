// @ts-check
/**
 * Credits booked at the bank that fund no payment (docs/bank.md, "Unapplied credits"): `bank_credits`,
 * one row per entry of the bank, taken once whichever file carries it (`entry_key`: the bank's
 * `AcctSvcrRef`, else the file's message id and the entry's position). A credit naming a payment is that
 * payment's account's; one naming none is the operator's (`account_id` null). The debtor's name and IBAN
 * are personal data, kept here only (never in Temporal) and erased with the payment; `debtor_last4` is
 * what is shown.
 *
 * The ledger: an unapplied credit is a party's account (`bank_credit:bc_…`) that may not go below zero,
 * and the bank's entries (type `bank_…`) may name neither a payment nor a recipient (an operator's credit).
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.createTable('bank_credits', (t) => {
    t.text('id').primary();
    t.text('account_id').nullable();
    t.boolean('livemode').notNullable();
    t.bigInteger('amount_minor').notNullable();
    t.text('currency').notNullable();
    t.smallint('exponent').notNullable();
    t.text('reference').nullable();
    t.text('status').notNullable().defaultTo('unapplied');
    t.text('payment_id').nullable();
    t.text('bank_file_id').nullable();
    t.date('booked_on').notNullable();
    t.text('bank_entry_ref').nullable();
    t.text('entry_key').notNullable().unique();
    t.text('debtor_name').nullable();
    t.text('debtor_iban').nullable();
    t.text('debtor_last4').nullable();
    t.integer('version').notNullable().defaultTo(1);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table bank_credits add constraint bank_credits_status check (status in ('unapplied', 'applied', 'returned'))`);
  await knex.raw('alter table bank_credits add constraint bank_credits_amount check (amount_minor > 0)');
  await knex.raw('create index bank_credits_account on bank_credits (account_id, livemode, status, id)');
  await knex.raw('create index bank_credits_payment on bank_credits (payment_id) where payment_id is not null');

  await knex.raw('alter table ledger_entries drop constraint ledger_entries_owner');
  await knex.raw(
    `alter table ledger_entries add constraint ledger_entries_owner check (payment_id is not null or recipient_id is not null or type like 'bank\\_%')`,
  );
  await knex.raw(`
    create or replace function ledger_account_not_negative() returns trigger language plpgsql as $$
    begin
      if new.balance_minor < 0 and (new.address like 'escrow:%' or new.address like 'recipient:%' or new.address like 'bank\\_credit:%') then
        raise exception 'ledger account % (%) would go below zero: %', new.address, new.currency, new.balance_minor
          using errcode = 'check_violation', constraint = 'ledger_account_balances_not_negative';
      end if;
      return null;
    end $$`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw(`
    create or replace function ledger_account_not_negative() returns trigger language plpgsql as $$
    begin
      if new.balance_minor < 0 and (new.address like 'escrow:%' or new.address like 'recipient:%') then
        raise exception 'ledger account % (%) would go below zero: %', new.address, new.currency, new.balance_minor
          using errcode = 'check_violation', constraint = 'ledger_account_balances_not_negative';
      end if;
      return null;
    end $$`);
  await knex.raw('alter table ledger_entries drop constraint ledger_entries_owner');
  await knex.raw(
    'alter table ledger_entries add constraint ledger_entries_owner check (payment_id is not null or recipient_id is not null) not valid',
  );
  await knex.schema.dropTable('bank_credits');
};
