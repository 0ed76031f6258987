// @ts-check
/**
 * Each stored amount keeps its exponent (the currency's minor units when it was taken), so that an
 * update of the ISO 4217 table never rescales it. Rows written before were scaled by ICU (`Intl`),
 * which is what this backfill records for them: their minor units mean what they meant.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('payments', (t) => t.smallint('amount_exponent'));
  const currencies = await knex('payments').distinct('currency').pluck('currency');
  for (const currency of currencies) {
    const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    await knex('payments').where({ currency }).whereNull('amount_exponent').update({ amount_exponent: digits });
  }
  await knex.raw('alter table payments alter column amount_exponent set not null');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.alterTable('payments', (t) => t.dropColumn('amount_exponent'));
};
