// @ts-check
/**
 * One event outbox for every object (docs/webhooks.md, "Events"; issue #57): a payout's and a
 * recipient's events are rows of `events` like a payment's (`payout_id` or `recipient_id` instead of
 * `payment_id`), listed by `GET /api/v1/events`; and a delivery names the event it delivers
 * (`webhook_deliveries.event_id`), as Stripe's every webhook is an Event.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('events', (t) => {
    t.text('payment_id').nullable().alter();
    t.text('payout_id').nullable();
    t.text('recipient_id').nullable();
  });
  await knex.raw('CREATE UNIQUE INDEX events_payout_sequence ON events (payout_id, sequence) WHERE payout_id IS NOT NULL');
  await knex.raw('CREATE UNIQUE INDEX events_recipient_sequence ON events (recipient_id, sequence) WHERE recipient_id IS NOT NULL');
  await knex.schema.alterTable('webhook_deliveries', (t) => t.text('event_id').nullable());
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.alterTable('webhook_deliveries', (t) => t.dropColumn('event_id'));
  await knex('events').whereNull('payment_id').delete();
  await knex.raw('DROP INDEX IF EXISTS events_recipient_sequence');
  await knex.raw('DROP INDEX IF EXISTS events_payout_sequence');
  await knex.schema.alterTable('events', (t) => {
    t.dropColumn('recipient_id');
    t.dropColumn('payout_id');
    t.text('payment_id').notNullable().alter();
  });
};
