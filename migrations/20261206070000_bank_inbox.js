// @ts-check
/**
 * The bank's files become the operator's (docs/bank.md): taken from the inbox once for the whole
 * service by their message id, not per account. A file taken keeps its raw bytes, their SHA-256,
 * when it came and from where (the inbox's file name, or `npm run bank-files -- take`); `answer` is
 * null and `lease_until` set while a taker is at it, so that a taker killed half-way leaves the file
 * to the next, and two never take one file at once. Rows of the old road (a tenant's POST) keep
 * their account and mode; the new ones have none, and their message id is unique among them.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('bank_files', (t) => {
    t.text('account_id').nullable().alter();
    t.boolean('livemode').nullable().alter();
    t.jsonb('answer').nullable().alter();
    t.binary('raw');
    t.text('sha256');
    t.timestamp('received_at', { useTz: true });
    t.text('source');
    t.timestamp('lease_until', { useTz: true });
  });
  await knex.raw(`create unique index bank_files_operator_message_id on bank_files (message_id) where account_id is null`);
  await knex.raw(`alter table bank_files add constraint bank_files_operator_raw check (
    account_id is not null or (raw is not null and sha256 is not null and received_at is not null and source is not null))`);
  // A pain.002 names the file it answers: the payouts of that file, found by it.
  await knex.raw(`create index payouts_message_id on payouts (message_id) where message_id is not null`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw(`drop index if exists payouts_message_id`);
  await knex('bank_files').whereNull('account_id').delete();
  await knex.raw(`alter table bank_files drop constraint if exists bank_files_operator_raw`);
  await knex.raw(`drop index if exists bank_files_operator_message_id`);
  await knex.schema.alterTable('bank_files', (t) => {
    t.dropColumns('raw', 'sha256', 'received_at', 'source', 'lease_until');
  });
};
