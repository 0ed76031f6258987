import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, beforeAll, inject } from 'vitest';
import { MIGRATIONS_DIR, createDb } from '../../src/platform/database/knex';

/** A step of a payment written before a migration: action, from, to. */
export type LegacyStep = [string, string | null, string];

/**
 * A payment as an older release left it (its row and history only), for the migration tests: the
 * migration under test must derive the rest.
 */
export async function legacyPayment(db: Knex, accountId: string, amountMinor: number, steps: LegacyStep[]): Promise<string> {
  const id = `pay_${randomBytes(13).toString('hex').toUpperCase().slice(0, 26)}`;
  const at = new Date('2026-11-01T10:00:00Z');
  const [, , status] = steps.at(-1)!;
  await db('payments').insert({
    id,
    account_id: accountId,
    livemode: false,
    amount_minor: amountMinor,
    amount_exponent: 2,
    currency: 'USD',
    status,
    payer_email: 'payer@example.com',
    recipient_email: 'recipient@example.com',
    metadata: '{}',
    deposit_deadline: at,
    created_at: at,
    updated_at: at,
    version: steps.length,
  });
  await db('payment_events').insert(
    steps.map(([action, from, to], i) => ({
      payment_id: id,
      seq: i + 1,
      action,
      from_status: from,
      to_status: to,
      event: `payment.${action}`,
      actor: 'key_legacy',
      at: new Date(at.getTime() + i * 1000),
    })),
  );
  return id;
}

/** The steps every legacy payment of the migration tests begins with: created, then deposited. */
export const CREATED: LegacyStep = ['create', null, 'pending_deposit'];
export const DEPOSITED: LegacyStep = ['deposit', 'pending_deposit', 'in_custody'];
/** A payment held, and one released through approval. */
export const HELD_STEPS: LegacyStep[] = [CREATED, DEPOSITED];
export const RELEASED_STEPS: LegacyStep[] = [
  CREATED,
  DEPOSITED,
  ['approve', 'in_custody', 'pending_release'],
  ['release', 'pending_release', 'released'],
];

const migrations = { directory: MIGRATIONS_DIR, loadExtensions: ['.js'] };

/**
 * A database of this test file's own (`<prefix>_<random>`), migrated up to just before `before`
 * and dropped after the file: the state an older release left, for a migration test.
 */
export function useLegacyDatabase(prefix: string, before: string) {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  let admin: Knex | undefined;
  let db: Knex | undefined;
  const legacy = {
    name,
    get db(): Knex {
      if (!db) throw new Error('the legacy database is made in beforeAll');
      return db;
    },
    /** Every migration up to, not including, `file`. */
    async migrateUpTo(file: string): Promise<void> {
      for (;;) {
        const [, pending] = (await legacy.db.migrate.list(migrations)) as [unknown, { file: string }[]];
        if (pending[0]?.file === file) return;
        await legacy.db.migrate.up(migrations);
      }
    },
    migrateLatest: () => legacy.db.migrate.latest(migrations),
    /** A payment as the older release wrote it (`legacyPayment`). */
    payment: (accountId: string, amountMinor: number, steps: LegacyStep[]) => legacyPayment(legacy.db, accountId, amountMinor, steps),
  };
  beforeAll(async () => {
    admin = createDb(inject('databaseUrl'));
    await admin.raw(`create database ${name}`);
    const url = new URL(inject('databaseUrl'));
    url.pathname = `/${name}`;
    db = createDb(url.toString());
    await legacy.migrateUpTo(before);
  });
  afterAll(async () => {
    await db?.destroy();
    await admin?.raw(`drop database if exists ${name}`);
    await admin?.destroy();
  });
  return legacy;
}
