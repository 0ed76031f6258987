// @ts-check
/**
 * Returns (docs/bank.md, "Returns"): `bank_returns`, one row per transfer back to the debtor account
 * a credit's entry named, written in the next pain.001 with its own EndToEndId (`rt-…`, the SEPA set)
 * and answered by the bank like a payout: `pending` (with `message_id` once the batch recorded it
 * for its file) → `in_file` (the file durably written) → `paid` | `failed`. The debtor's name and
 * account are not copied here: the file reads them from the credit's row (`credit_id`), where they
 * are erased with the payment. Written by the workers only (src/platform/database/roles.ts).
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.createTable('bank_returns', (t) => {
    t.text('id').primary();
    t.text('kind').notNullable();
    t.text('account_id').nullable();
    t.boolean('livemode').notNullable();
    t.text('credit_id').notNullable();
    t.text('payment_id').nullable();
    t.bigInteger('amount_minor').notNullable();
    t.text('currency').notNullable();
    t.smallint('exponent').notNullable();
    t.text('end_to_end_id').notNullable().unique();
    t.text('status').notNullable().defaultTo('pending');
    t.text('message_id').nullable();
    t.text('failure_code').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table bank_returns add constraint bank_returns_kind check (kind in ('credit_return', 'refund'))`);
  await knex.raw(`alter table bank_returns add constraint bank_returns_status check (status in ('pending', 'in_file', 'paid', 'failed'))`);
  await knex.raw('alter table bank_returns add constraint bank_returns_amount check (amount_minor > 0)');
  await knex.raw(`alter table bank_returns add constraint bank_returns_in_file check (status <> 'in_file' or message_id is not null)`);
  // A credit has at most one return under way: a second request finds the first.
  await knex.raw(
    `create unique index bank_returns_one_open on bank_returns (credit_id) where status in ('pending', 'in_file') and kind = 'credit_return'`,
  );
  await knex.raw(`create index bank_returns_waiting on bank_returns (id) where status = 'pending' and livemode`);
  await knex.raw('create index bank_returns_message on bank_returns (message_id) where message_id is not null');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.dropTable('bank_returns');
};
