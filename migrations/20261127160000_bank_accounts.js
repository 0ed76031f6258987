// @ts-check
/**
 * Bank accounts of recipients (docs/payouts.md, "Bank accounts"): the full number sealed
 * (src/platform/lib/sealedBox.ts), `last4` and the keyed `fingerprint` beside it. At most one default per
 * recipient and currency among accounts not deleted; a deleted account keeps its row for the
 * payouts that name it, without its number.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.createTable('bank_accounts', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable();
    t.boolean('livemode').notNullable();
    t.text('recipient_id').notNullable().references('id').inTable('recipients');
    t.text('account_holder_name').notNullable();
    t.text('country').notNullable();
    t.text('currency').notNullable();
    t.text('last4').notNullable();
    t.text('fingerprint').notNullable();
    t.text('number_sealed');
    t.text('status').notNullable().defaultTo('new');
    t.boolean('default_for_currency').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('deleted_at', { useTz: true });
    t.index(['recipient_id', 'created_at', 'id']);
  });
  await knex.raw(
    `alter table bank_accounts add constraint bank_accounts_status check (status in ('new', 'verified', 'errored', 'disabled'))`,
  );
  // A live account keeps its number until it is deleted or its recipient redacted.
  await knex.raw(
    `alter table bank_accounts add constraint bank_accounts_number check (deleted_at is not null or number_sealed is not null)`,
  );
  await knex.raw(
    `create unique index bank_accounts_one_default on bank_accounts (recipient_id, currency) where default_for_currency and deleted_at is null`,
  );
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.dropTableIfExists('bank_accounts');
};
