// @ts-check
/**
 * Recipients (docs/concepts.md, "Recipients"): who a payment's money is released to, per account and
 * mode, with the verification the platform reports. The e-mail, name and metadata are personal data,
 * kept in the row and erased in place (docs/operations.md). A payment names its recipient in
 * `recipient_id`; a delivery of a recipient's event names it in `recipient_id` (its `payment_id` null).
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.createTable('recipients', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable();
    t.boolean('livemode').notNullable();
    t.text('email').notNullable();
    t.text('name');
    t.text('country').notNullable();
    t.text('type').notNullable();
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.text('verification_status').notNullable().defaultTo('unverified');
    t.jsonb('requirements').notNullable();
    t.text('disabled_reason');
    t.boolean('payouts_enabled').notNullable().defaultTo(false);
    t.integer('version').notNullable().defaultTo(1);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.timestamp('redacted_at', { useTz: true });
    t.index(['account_id', 'livemode', 'created_at', 'id']);
  });
  await knex.raw(`alter table recipients add constraint recipients_type check (type in ('individual', 'company'))`);
  await knex.raw(
    `alter table recipients add constraint recipients_status check (verification_status in ('unverified', 'pending', 'verified', 'rejected'))`,
  );
  // Derived, and held so by PostgreSQL: verified with nothing past due.
  await knex.raw(`alter table recipients add constraint recipients_payouts_enabled check (
    payouts_enabled = (verification_status = 'verified' and jsonb_array_length(requirements -> 'past_due') = 0))`);
  await knex.schema.alterTable('payments', (t) => t.text('recipient_id'));
  await knex.raw('create index payments_recipient on payments (recipient_id) where recipient_id is not null');
  await knex.schema.alterTable('webhook_deliveries', (t) => t.text('recipient_id'));
  await knex.raw('create index webhook_deliveries_recipient on webhook_deliveries (recipient_id) where recipient_id is not null');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('drop index if exists webhook_deliveries_recipient');
  await knex.schema.alterTable('webhook_deliveries', (t) => t.dropColumn('recipient_id'));
  await knex.raw('drop index if exists payments_recipient');
  await knex.schema.alterTable('payments', (t) => t.dropColumn('recipient_id'));
  await knex.schema.dropTableIfExists('recipients');
};
