// @ts-check
/**
 * A refund of a payment funded by transfer is paid back by transfer (docs/bank.md, "Returns"): each
 * refund's ledger entry (`refund_entry_id`) makes one return per credit it is paid back to, once.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('bank_returns', (t) => {
    t.text('refund_entry_id').nullable();
  });
  await knex.raw(
    'create unique index bank_returns_refund_once on bank_returns (refund_entry_id, credit_id) where refund_entry_id is not null',
  );
  await knex.raw(
    `alter table bank_returns add constraint bank_returns_refund_entry check ((kind = 'refund') = (refund_entry_id is not null))`,
  );
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('alter table bank_returns drop constraint bank_returns_refund_entry');
  await knex.raw('drop index bank_returns_refund_once');
  await knex.schema.alterTable('bank_returns', (t) => {
    t.dropColumn('refund_entry_id');
  });
};
