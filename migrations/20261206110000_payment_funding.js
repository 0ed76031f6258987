// @ts-check
/**
 * Funding by bank transfer (docs/bank.md, "Funding by bank transfer"): how a payment's money comes in
 * (`api`, the platform reports the deposit; `bank_transfer`, the bank's credit is matched), what it
 * received by transfer so far, the custody account its payer was told, and its ISO 11649 creditor
 * reference, unique, by which a credit is matched. Existing payments are `api`, with the reference
 * their id gives (src/payments/fundingReference.rules.ts: the same derivation).
 */
Object.defineProperty(exports, '__esModule', { value: true });
const { generate } = require('node-iso11649');

/** @param {string} id */
const referenceOf = (id) =>
  generate(
    id
      .replace(/^pay_/, '')
      .toUpperCase()
      .replace(/[^0-9A-Z]/g, '')
      .slice(-21)
      .padStart(21, '0'),
  );

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('payments', (t) => {
    t.text('funding').notNullable().defaultTo('api');
    t.bigInteger('amount_received_minor').notNullable().defaultTo(0);
    t.jsonb('custody').nullable();
    t.text('funding_reference').nullable();
  });
  await knex.raw("alter table payments add constraint payments_funding_check check (funding in ('api', 'bank_transfer'))");
  for (;;) {
    const rows = await knex('payments').whereNull('funding_reference').select('id').limit(1000);
    if (rows.length === 0) break;
    for (const { id } of rows)
      await knex('payments')
        .where({ id })
        .update({ funding_reference: referenceOf(id) });
  }
  await knex.raw('create unique index payments_funding_reference on payments (funding_reference)');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('drop index if exists payments_funding_reference');
  await knex.raw('alter table payments drop constraint if exists payments_funding_check');
  await knex.schema.alterTable('payments', (t) => {
    t.dropColumn('funding_reference');
    t.dropColumn('custody');
    t.dropColumn('amount_received_minor');
    t.dropColumn('funding');
  });
};
