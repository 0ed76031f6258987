// @ts-check
/**
 * A history entry may emit more than one event (a split: `payment.partially_refunded` for its
 * refunded part, then `payment.released`; docs/webhooks.md): `ordinal` orders the events of one
 * version, the transition's own being 0 and one that precedes it lower, and is part of the key.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('events', (t) => {
    t.smallint('ordinal').notNullable().defaultTo(0);
  });
  await knex.schema.alterTable('events', (t) => {
    t.dropUnique(['payment_id', 'sequence']);
    t.unique(['payment_id', 'sequence', 'ordinal']);
    t.dropIndex(['account_id', 'livemode', 'created_at', 'id']);
    t.index(['account_id', 'livemode', 'created_at', 'ordinal', 'id']);
  });
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex('events').whereNot({ ordinal: 0 }).delete();
  await knex.schema.alterTable('events', (t) => {
    t.dropIndex(['account_id', 'livemode', 'created_at', 'ordinal', 'id']);
    t.index(['account_id', 'livemode', 'created_at', 'id']);
    t.dropUnique(['payment_id', 'sequence', 'ordinal']);
    t.unique(['payment_id', 'sequence']);
    t.dropColumn('ordinal');
  });
};
