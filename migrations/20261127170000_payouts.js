// @ts-check
/**
 * Payouts and the bank files read for them (docs/payouts.md). A payout row is the read model of its
 * workflow (workflow id = payout id); its money moves by ledger entries of its own. PostgreSQL holds
 * the rules a row must keep whatever writes it: a positive amount, a status and failure code of the
 * payout table (a failure code exactly when failed or returned), one payout per EndToEndId, and a
 * bank file taken once per account and mode by its message id.
 */
Object.defineProperty(exports, '__esModule', { value: true });

const STATUSES = ['pending', 'in_transit', 'paid', 'failed', 'canceled', 'returned'];
const FAILURE_CODES = [
  'account_closed',
  'no_account',
  'invalid_account_number',
  'account_frozen',
  'incorrect_account_holder_name',
  'declined',
  'could_not_process',
];
const list = (/** @type {string[]} */ values) => values.map((v) => `'${v}'`).join(', ');

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.createTable('payouts', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable();
    t.boolean('livemode').notNullable();
    t.text('recipient_id').notNullable().references('id').inTable('recipients');
    t.text('bank_account_id').notNullable().references('id').inTable('bank_accounts');
    t.bigInteger('amount').notNullable();
    t.text('currency').notNullable();
    t.integer('amount_exponent').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.text('failure_code');
    t.text('end_to_end_id').notNullable().unique();
    // The pain.001 file it went out in (live mode), once written.
    t.text('message_id');
    // Test mode: how far the payout's clock was moved ahead (POST /api/v1/test_helpers/payouts/:id/advance).
    t.integer('clock_offset_seconds').notNullable().defaultTo(0);
    t.integer('version').notNullable().defaultTo(1);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['account_id', 'livemode', 'created_at', 'id']);
    t.index(['recipient_id', 'status']);
  });
  await knex.raw(`alter table payouts add constraint payouts_amount check (amount > 0)`);
  await knex.raw(`alter table payouts add constraint payouts_status check (status in (${list(STATUSES)}))`);
  await knex.raw(`alter table payouts add constraint payouts_failure_code check (
    (failure_code is null) = (status not in ('failed', 'returned')) and (failure_code is null or failure_code in (${list(FAILURE_CODES)})))`);
  await knex.raw(`create index payouts_pending_live on payouts (created_at) where livemode and status = 'pending'`);

  await knex.schema.createTable('bank_files', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable();
    t.boolean('livemode').notNullable();
    t.text('message_id').notNullable();
    t.text('message_type').notNullable();
    // The answer as given the first time (src/payouts/bankFile.view.ts): a file sent again is answered the same.
    t.jsonb('answer').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.unique(['account_id', 'livemode', 'message_id']);
  });
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.dropTableIfExists('bank_files');
  await knex.schema.dropTableIfExists('payouts');
};
