// @ts-check
/**
 * The ledger's second generation (docs/money.md): every posting names its account's address — a
 * payment's custody `escrow:pay_…`, a recipient's `recipient:rcp_…:pending|available|in_transit|paid_out`,
 * else its kind — and those per-party accounts keep a balance row of their own that PostgreSQL refuses
 * below zero (a CHECK), moved in the same statement as the postings. An entry may belong to a
 * recipient rather than a payment (moving its pending money to available). Existing postings get
 * their addresses and balances here, so every balance answers as before.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('ledger_postings', (t) => t.text('address'));
  // Postings never change, but for this one backfill of a column they did not have.
  await knex.raw('alter table ledger_postings disable trigger ledger_postings_immutable');
  await knex.raw(`
    update ledger_postings p set address = case when p.ledger_account = 'custody' then 'escrow:' || e.payment_id else p.ledger_account end
    from ledger_entries e where e.id = p.entry_id`);
  await knex.raw('alter table ledger_postings enable trigger ledger_postings_immutable');
  await knex.raw('alter table ledger_postings alter column address set not null');
  await knex.raw('create index ledger_postings_address on ledger_postings (address, entry_id)');

  await knex.raw('alter table ledger_entries alter column payment_id drop not null');
  await knex.schema.alterTable('ledger_entries', (t) => t.text('recipient_id'));
  await knex.raw('create index ledger_entries_recipient on ledger_entries (recipient_id) where recipient_id is not null');
  // A payment's entries stay unique by (payment, version, milestone); a recipient's are unique by their id alone.
  await knex.raw('alter table ledger_entries drop constraint ledger_entries_payment_id_version_milestone_id_unique');
  await knex.raw(`create unique index ledger_entries_payment_version_milestone on ledger_entries (payment_id, version, milestone_id)
    nulls not distinct where payment_id is not null`);
  await knex.raw(
    'alter table ledger_entries add constraint ledger_entries_owner check (payment_id is not null or recipient_id is not null)',
  );

  await knex.schema.createTable('ledger_account_balances', (t) => {
    t.text('address').notNullable();
    t.text('currency').notNullable();
    t.smallint('exponent').notNullable();
    t.text('account_id').notNullable();
    t.boolean('livemode').notNullable();
    t.bigInteger('balance_minor').notNullable();
    t.primary(['address', 'currency', 'exponent']);
  });
  // The invariant refused at write: no payment's custody, no recipient's balance, below zero. A
  // trigger after the row is written rather than a CHECK, which PostgreSQL applies to the row an
  // upsert proposes (a negative movement) before it finds the row to add it to.
  await knex.raw(`
    create function ledger_account_not_negative() returns trigger language plpgsql as $$
    begin
      if new.balance_minor < 0 then
        raise exception 'ledger account % (%) would go below zero: %', new.address, new.currency, new.balance_minor
          using errcode = 'check_violation', constraint = 'ledger_account_balances_not_negative';
      end if;
      return null;
    end $$`);
  await knex.raw(`create constraint trigger ledger_account_balances_not_negative after insert or update on ledger_account_balances
    for each row execute function ledger_account_not_negative()`);
  await knex.raw(`
    insert into ledger_account_balances (address, currency, exponent, account_id, livemode, balance_minor)
    select p.address, e.currency, e.exponent, e.account_id, e.livemode, sum(p.amount_minor)
    from ledger_postings p join ledger_entries e on e.id = p.entry_id
    where p.address like 'escrow:%' or p.address like 'recipient:%'
    group by p.address, e.currency, e.exponent, e.account_id, e.livemode`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.dropTableIfExists('ledger_account_balances');
  await knex.raw('drop function if exists ledger_account_not_negative()');
  await knex.raw('alter table ledger_entries drop constraint if exists ledger_entries_owner');
  await knex.raw('drop index if exists ledger_entries_payment_version_milestone');
  await knex.raw(
    'alter table ledger_entries add constraint ledger_entries_payment_id_version_milestone_id_unique unique nulls not distinct (payment_id, version, milestone_id)',
  );
  await knex.raw('drop index if exists ledger_entries_recipient');
  await knex.schema.alterTable('ledger_entries', (t) => t.dropColumn('recipient_id'));
  await knex.raw('drop index if exists ledger_postings_address');
  await knex.schema.alterTable('ledger_postings', (t) => t.dropColumn('address'));
};
