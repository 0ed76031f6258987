// @ts-check
/**
 * The custody trail (docs/audit.md): an append-only log of leaves, the stored perfect subtrees of
 * its RFC 9162 Merkle tree, and the signed tree heads. PostgreSQL itself refuses to change or
 * remove a row of any of them.
 */
Object.defineProperty(exports, '__esModule', { value: true });

const TABLES = ['audit_leaves', 'audit_nodes', 'audit_tree_heads'];

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.createTable('audit_leaves', (t) => {
    // Arrival order of the writers' inserts (may have gaps: rolled-back transactions).
    t.bigIncrements('id');
    // The position in the log: gap-free, assigned once by the sequencer (src/audit/trail.repository.ts).
    t.bigInteger('leaf_index').unique();
    // What the leaf records, e.g. `transition:<payment id>:<version>`: a repeated write never appends twice.
    t.text('entry_key').notNullable().unique();
    t.text('kind').notNullable();
    t.text('payment_id');
    t.text('account_id');
    t.boolean('livemode');
    t.text('leaf').notNullable(); // the canonical JSON whose UTF-8 bytes are hashed
    t.binary('leaf_hash').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['payment_id', 'leaf_index']);
  });
  await knex.raw('ALTER TABLE audit_leaves ADD CONSTRAINT audit_leaves_index_nonnegative CHECK (leaf_index >= 0)');
  // The sequencer's queue: leaves not yet given a position.
  await knex.raw('CREATE INDEX audit_leaves_unsequenced ON audit_leaves (id) WHERE leaf_index IS NULL');

  await knex.schema.createTable('audit_nodes', (t) => {
    // The perfect subtree over leaves [index × 2^level, (index + 1) × 2^level); level 0 is a leaf hash.
    t.smallint('level').notNullable();
    t.bigInteger('index').notNullable();
    t.binary('hash').notNullable();
    t.primary(['level', 'index']);
  });

  await knex.schema.createTable('audit_tree_heads', (t) => {
    t.bigIncrements('id');
    t.bigInteger('tree_size').notNullable();
    t.binary('root_hash').notNullable();
    t.text('timestamp').notNullable(); // exactly the string that was signed
    t.binary('signature').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  // Refuse every UPDATE, DELETE and TRUNCATE. The one update allowed is the sequencer's: giving
  // an unsequenced leaf its position, once, with every other column unchanged.
  await knex.raw(`
    CREATE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'the audit log is append-only: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
    END
    $$`);
  await knex.raw(`
    CREATE FUNCTION audit_leaf_sequenced_once() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF OLD.leaf_index IS NULL AND NEW.leaf_index IS NOT NULL
         AND ROW(NEW.id, NEW.entry_key, NEW.kind, NEW.payment_id, NEW.account_id, NEW.livemode, NEW.leaf, NEW.leaf_hash, NEW.created_at)
             IS NOT DISTINCT FROM
             ROW(OLD.id, OLD.entry_key, OLD.kind, OLD.payment_id, OLD.account_id, OLD.livemode, OLD.leaf, OLD.leaf_hash, OLD.created_at)
      THEN
        RETURN NEW;
      END IF;
      RAISE EXCEPTION 'the audit log is append-only: UPDATE on audit_leaves refused (only an unsequenced leaf''s position may be set, once)'
        USING ERRCODE = 'insufficient_privilege';
    END
    $$`);
  await knex.raw(
    'CREATE TRIGGER audit_leaves_sequenced_once BEFORE UPDATE ON audit_leaves FOR EACH ROW EXECUTE FUNCTION audit_leaf_sequenced_once()',
  );
  await knex.raw('CREATE TRIGGER audit_leaves_append_only BEFORE DELETE ON audit_leaves FOR EACH ROW EXECUTE FUNCTION audit_append_only()');
  for (const table of ['audit_nodes', 'audit_tree_heads']) {
    await knex.raw(
      `CREATE TRIGGER ${table}_append_only BEFORE UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION audit_append_only()`,
    );
  }
  for (const table of TABLES) {
    await knex.raw(
      `CREATE TRIGGER ${table}_no_truncate BEFORE TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION audit_append_only()`,
    );
  }
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  for (const table of [...TABLES].reverse()) await knex.schema.dropTableIfExists(table);
  await knex.raw('DROP FUNCTION IF EXISTS audit_leaf_sequenced_once()');
  await knex.raw('DROP FUNCTION IF EXISTS audit_append_only()');
};
