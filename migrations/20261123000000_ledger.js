// @ts-check
/**
 * The ledger of docs/money.md: the payment's amounts on the read model, immutable double-entry
 * entries and postings (PostgreSQL itself refuses an entry whose postings do not sum to zero, and
 * any UPDATE or DELETE), and balances kept beside them. Payments made before the ledger get their
 * amounts and entries here, derived from their status and history as `amountsOf` derives them.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** The entry id for a payment's version: as `ledgerEntryId` in src/ledger/ledger.repository.ts computes it. */
const ENTRY_ID = (payment, version) => `'le_' || substr(encode(sha256(convert_to(${payment} || '|' || ${version}, 'UTF8')), 'hex'), 1, 26)`;

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('payments', (t) => {
    t.bigInteger('platform_fee_minor').notNullable().defaultTo(0);
    t.bigInteger('held_minor').notNullable().defaultTo(0);
    t.bigInteger('released_minor').notNullable().defaultTo(0);
    t.bigInteger('refunded_minor').notNullable().defaultTo(0);
    t.bigInteger('fee_collected_minor').notNullable().defaultTo(0);
  });
  await knex.raw(`
    update payments set
      held_minor = case when status in ('in_custody', 'pending_release', 'disputed') then amount_minor else 0 end,
      released_minor = case when status = 'released' then amount_minor else 0 end,
      refunded_minor = case when status = 'refunded' then amount_minor else 0 end`);

  await knex.schema.createTable('ledger_entries', (t) => {
    t.text('id').primary();
    t.text('payment_id').notNullable().references('payments.id');
    t.integer('version').notNullable();
    t.text('account_id').notNullable();
    t.boolean('livemode').notNullable();
    t.text('currency').notNullable();
    t.smallint('exponent').notNullable();
    t.text('type').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.unique(['payment_id', 'version']);
    t.index(['account_id', 'livemode', 'created_at', 'id']);
  });
  await knex.schema.createTable('ledger_postings', (t) => {
    t.text('entry_id').notNullable().references('ledger_entries.id');
    t.text('ledger_account').notNullable();
    t.bigInteger('amount_minor').notNullable();
    t.primary(['entry_id', 'ledger_account']);
  });
  await knex.schema.createTable('ledger_balances', (t) => {
    t.text('account_id').notNullable();
    t.boolean('livemode').notNullable();
    t.text('currency').notNullable();
    t.smallint('exponent').notNullable();
    t.text('ledger_account').notNullable();
    t.bigInteger('balance_minor').notNullable();
    t.primary(['account_id', 'livemode', 'currency', 'exponent', 'ledger_account']);
  });
  await knex.raw(`
    create function ledger_entry_balanced() returns trigger language plpgsql as $$
    declare
      entry text := coalesce(to_jsonb(new) ->> 'entry_id', to_jsonb(new) ->> 'id');
      total numeric;
      postings int;
    begin
      select coalesce(sum(amount_minor), 0), count(*) into total, postings from ledger_postings where entry_id = entry;
      if postings < 2 or total <> 0 then
        raise exception 'ledger entry % does not balance: % postings summing to %', entry, postings, total
          using errcode = 'check_violation';
      end if;
      return null;
    end $$`);
  // Checked at commit, when every posting of the entry is in.
  for (const table of ['ledger_entries', 'ledger_postings']) {
    await knex.raw(`create constraint trigger ${table}_balanced after insert on ${table}
      deferrable initially deferred for each row execute function ledger_entry_balanced()`);
  }
  await knex.raw(`
    create function ledger_immutable() returns trigger language plpgsql as $$
    begin
      raise exception '% rows never change: a correction is a new entry', tg_table_name using errcode = 'insufficient_privilege';
    end $$`);
  for (const table of ['ledger_entries', 'ledger_postings']) {
    await knex.raw(`create trigger ${table}_immutable before update or delete on ${table}
      for each row execute function ledger_immutable()`);
  }

  // Payments made before the ledger: a deposit entry at their deposit's version, and a release or
  // refund entry at the version that ended them (their fee is 0).
  await knex.raw(`
    create temporary table ledger_backfill on commit drop as
    select p.id as payment_id, e.seq as version, p.account_id, p.livemode, p.currency, p.amount_exponent as exponent,
           case when e.action = 'deposit' then 'deposit' when e.to_status = 'released' then 'release' else 'refund' end as type,
           e.at as created_at, p.amount_minor
    from payments p join payment_events e on e.payment_id = p.id
    where e.action = 'deposit' or e.to_status in ('released', 'refunded')`);
  await knex.raw(`
    insert into ledger_entries (id, payment_id, version, account_id, livemode, currency, exponent, type, created_at)
    select ${ENTRY_ID('payment_id', 'version')}, payment_id, version, account_id, livemode, currency, exponent, type, created_at
    from ledger_backfill`);
  await knex.raw(`
    insert into ledger_postings (entry_id, ledger_account, amount_minor)
    select ${ENTRY_ID('payment_id', 'version')}, posting.account, posting.amount
    from ledger_backfill b cross join lateral (values
      (case b.type when 'deposit' then 'payer_deposits' else 'custody' end, -b.amount_minor),
      (case b.type when 'deposit' then 'custody' when 'release' then 'recipient_payable' else 'payer_refunds' end, b.amount_minor)
    ) as posting(account, amount)`);
  await knex.raw(`
    insert into ledger_balances (account_id, livemode, currency, exponent, ledger_account, balance_minor)
    select e.account_id, e.livemode, e.currency, e.exponent, p.ledger_account, sum(p.amount_minor)
    from ledger_postings p join ledger_entries e on e.id = p.entry_id
    group by e.account_id, e.livemode, e.currency, e.exponent, p.ledger_account`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.dropTableIfExists('ledger_balances');
  await knex.schema.dropTableIfExists('ledger_postings');
  await knex.schema.dropTableIfExists('ledger_entries');
  await knex.raw('drop function if exists ledger_entry_balanced()');
  await knex.raw('drop function if exists ledger_immutable()');
  await knex.schema.alterTable('payments', (t) => {
    for (const column of ['platform_fee_minor', 'held_minor', 'released_minor', 'refunded_minor', 'fee_collected_minor'])
      t.dropColumn(column);
  });
};
