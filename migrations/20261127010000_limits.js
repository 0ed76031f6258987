// @ts-check
/**
 * Limits that hold across processes (docs/security.md, "Quotas").
 *
 * Open payments per account and mode: `open_payment_counts` is kept exact by a trigger on
 * `payments`, whatever writes the row (the API's write-through, the projection, a repair). A create
 * first claims a place in `payment_claims` under the count row's lock, before its workflow starts;
 * the payment's row, once written, replaces its claim in the same statement (the trigger deletes it).
 * Terminal statuses are those of src/payments/payment.rules.ts's TERMINAL_STATUSES.
 *
 * Test sends per webhook configuration: one row per configuration, its hour and the sends in it.
 *
 * A configuration's deliveries not yet ended, counted on a partial index (its backlog).
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.raw('SET CONSTRAINTS ALL IMMEDIATE');
  await knex.schema.createTable('open_payment_counts', (t) => {
    t.text('account_id').notNullable().references('accounts.id');
    t.boolean('livemode').notNullable();
    t.integer('open').notNullable().defaultTo(0);
    t.primary(['account_id', 'livemode']);
  });
  await knex.schema.createTable('payment_claims', (t) => {
    t.text('payment_id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.boolean('livemode').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'livemode', 'created_at']);
  });
  await knex.raw(`
    create function payments_open_count() returns trigger language plpgsql as $$
    declare
      was_open boolean := tg_op <> 'INSERT' and old.status not in ('released', 'cancelled', 'refunded');
      is_open boolean := tg_op <> 'DELETE' and new.status not in ('released', 'cancelled', 'refunded');
      row_ record := case when tg_op = 'DELETE' then old else new end;
    begin
      if tg_op = 'INSERT' then
        delete from payment_claims where payment_id = new.id;
      end if;
      if was_open is distinct from is_open then
        insert into open_payment_counts (account_id, livemode, open)
        values (row_.account_id, row_.livemode, case when is_open then 1 else -1 end)
        on conflict (account_id, livemode) do update set open = open_payment_counts.open + excluded.open;
      end if;
      return null;
    end $$`);
  await knex.raw(`
    create trigger payments_open_count after insert or delete or update of status on payments
    for each row execute function payments_open_count()`);
  await knex.raw(`
    insert into open_payment_counts (account_id, livemode, open)
    select account_id, livemode, count(*) from payments
    where status not in ('released', 'cancelled', 'refunded') group by account_id, livemode`);
  await knex.schema.createTable('webhook_test_sends', (t) => {
    t.text('webhook_id').primary().references('webhooks.id').onDelete('CASCADE');
    t.timestamp('hour', { useTz: true }).notNullable();
    t.integer('sent').notNullable();
  });
  await knex.raw(`create index webhook_deliveries_pending on webhook_deliveries (webhook_id) where status = 'pending'`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('drop index webhook_deliveries_pending');
  await knex.schema.dropTable('webhook_test_sends');
  await knex.raw('drop trigger payments_open_count on payments');
  await knex.raw('drop function payments_open_count()');
  await knex.schema.dropTable('payment_claims');
  await knex.schema.dropTable('open_payment_counts');
};
