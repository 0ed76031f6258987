// @ts-check
/**
 * Milestones (docs/concepts.md, "Deals paid in stages"). A payment keeps its milestones as the
 * workflow holds them (ids, amounts, statuses, auto-release times) in `payments.milestones`; their
 * references, descriptions and recipients are personal data, kept as the payer's e-mail is (in
 * `payments.milestone_personal` and `payment_personal.milestones`) and erased with it.
 * A history entry names the milestone a milestone action was for; a ledger entry names the
 * milestone whose money it moved, so one step may write an entry per milestone.
 *
 * Payments made before get their one milestone of the whole amount (`ms_` + the payment's ULID),
 * with the auto-release time their history implies; their ledger entries, which never change, keep
 * a null `milestone_id`, which names that milestone.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  // Run in one transaction with earlier migrations that wrote ledger entries: check their deferred constraints now, before ALTER TABLE.
  await knex.raw('SET CONSTRAINTS ALL IMMEDIATE');
  await knex.schema.alterTable('payments', (t) => {
    t.jsonb('milestones');
    t.boolean('staged').notNullable().defaultTo(false);
  });
  await knex.raw(`
    update payments p set milestones = jsonb_build_array(jsonb_build_object(
      'id', 'ms_' || substr(p.id, 5),
      'amountMinor', p.amount_minor::text,
      'status', p.status,
      'heldMinor', p.held_minor::text,
      'releasedMinor', p.released_minor::text,
      'refundedMinor', p.refunded_minor::text,
      'feeCollectedMinor', p.fee_collected_minor::text,
      'autoReleaseAfterSeconds', p.auto_release_after_seconds,
      'releaseAt', case when p.status = 'pending_release' and p.auto_release_after_seconds is not null then
        to_char(((select max(e.at) from payment_events e where e.payment_id = p.id and e.to_status = 'pending_release')
          + make_interval(secs => p.auto_release_after_seconds)) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') end,
      'reference', null,
      'description', null,
      'recipientEmail', ''))`);
  await knex.schema.alterTable('payments', (t) => {
    t.jsonb('milestones').notNullable().alter();
    // Their references, descriptions and recipients, as payer_email is kept: written once, erased by a redaction.
    t.jsonb('milestone_personal');
  });
  await knex.schema.alterTable('payment_personal', (t) => {
    // [{id, reference, description, recipientEmail}] of a payment created with milestones; null otherwise.
    t.jsonb('milestones');
  });
  await knex.schema.alterTable('payment_events', (t) => {
    t.text('milestone_id');
  });
  // A milestone event's milestone (the Events API shows it as webhooks do).
  await knex.schema.alterTable('events', (t) => {
    t.text('milestone_id');
  });
  // Entries never change: one written before milestones keeps null, its payment's one milestone.
  await knex.schema.alterTable('ledger_entries', (t) => {
    t.text('milestone_id');
    t.dropUnique(['payment_id', 'version']);
  });
  await knex.raw(
    'alter table ledger_entries add constraint ledger_entries_payment_id_version_milestone_id_unique unique nulls not distinct (payment_id, version, milestone_id)',
  );
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.alterTable('ledger_entries', (t) => {
    t.dropUnique([], 'ledger_entries_payment_id_version_milestone_id_unique');
    t.unique(['payment_id', 'version']);
    t.dropColumn('milestone_id');
  });
  await knex.schema.alterTable('events', (t) => t.dropColumn('milestone_id'));
  await knex.schema.alterTable('payment_events', (t) => t.dropColumn('milestone_id'));
  await knex.schema.alterTable('payment_personal', (t) => t.dropColumn('milestones'));
  await knex.schema.alterTable('payments', (t) => {
    t.dropColumn('staged');
    t.dropColumn('milestone_personal');
    t.dropColumn('milestones');
  });
};
