// @ts-check
/** Initial schema. Plain CommonJS so knex loads it from tsx, vitest and compiled builds alike. */
Object.defineProperty(exports, '__esModule', { value: true });
exports.up = up;
exports.down = down;
async function up(knex) {
  await knex.schema.createTable('accounts', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('users', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('email').notNullable().unique(); // stored lower-case
    t.text('password_hash').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('api_keys', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.boolean('livemode').notNullable();
    t.text('key_hash').notNullable().unique(); // sha256 of the key: keys carry 192 random bits
    t.text('last4').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true });
    t.index(['account_id', 'livemode']);
  });
  await knex.schema.createTable('payments', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.boolean('livemode').notNullable();
    t.bigInteger('amount_minor').notNullable();
    t.text('currency').notNullable();
    t.text('status').notNullable();
    t.text('payer_email').notNullable();
    t.text('recipient_email').notNullable();
    t.text('description');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.timestamp('deposit_deadline', { useTz: true }).notNullable();
    t.integer('auto_release_after_seconds');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.integer('version').notNullable();
    t.index(['account_id', 'livemode', 'created_at', 'id']);
    t.index(['account_id', 'livemode', 'status', 'created_at']);
  });
  await knex.schema.createTable('payment_events', (t) => {
    t.text('payment_id').notNullable().references('payments.id');
    t.integer('seq').notNullable();
    t.text('action').notNullable();
    t.text('from_status');
    t.text('to_status').notNullable();
    t.text('event').notNullable();
    t.text('actor').notNullable();
    t.text('reason');
    t.timestamp('at', { useTz: true }).notNullable();
    t.primary(['payment_id', 'seq']);
  });
  await knex.schema.createTable('webhooks', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.boolean('livemode').notNullable();
    t.text('url').notNullable();
    t.text('secret').notNullable();
    t.specificType('events', 'text[]').notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('deleted_at', { useTz: true });
    t.index(['account_id', 'livemode']);
  });
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.text('id').primary();
    t.text('webhook_id').notNullable().references('webhooks.id');
    t.text('payment_id');
    t.text('event').notNullable();
    t.text('body').notNullable(); // the exact bytes sent on every attempt
    t.text('status').notNullable().defaultTo('pending'); // pending | succeeded | failed | skipped
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['webhook_id', 'created_at']);
  });
  await knex.schema.createTable('webhook_delivery_attempts', (t) => {
    t.bigIncrements('id');
    t.text('delivery_id').notNullable().references('webhook_deliveries.id');
    t.integer('attempt').notNullable();
    t.timestamp('at', { useTz: true }).notNullable();
    t.integer('status_code');
    t.integer('duration_ms').notNullable();
    t.text('error');
    t.unique(['delivery_id', 'attempt']);
  });
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.text('account_id').notNullable();
    t.boolean('livemode').notNullable();
    t.text('key').notNullable();
    t.text('request_hash').notNullable();
    t.integer('status_code');
    t.jsonb('response_body');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['account_id', 'livemode', 'key']);
  });
}
async function down(knex) {
  for (const table of [
    'idempotency_keys',
    'webhook_delivery_attempts',
    'webhook_deliveries',
    'webhooks',
    'payment_events',
    'payments',
    'api_keys',
    'users',
    'accounts',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
