/**
 * Which mode an object of an account is in, found by its id alone: the id's prefix names its table
 * (pay_, wh_, dlv_, evt_, key_, rcp_, ba_, po_, bf_). A milestone is found through its payment, whose id its routes carry.
 */
import type { Knex } from 'knex';

type Lookup = (db: Knex, accountId: string, id: string) => Knex.QueryBuilder;

const OWN_ROWS =
  (table: string): Lookup =>
  (db, accountId, id) =>
    db(table).where({ id, account_id: accountId }).select('livemode');

const LOOKUPS: Record<string, Lookup> = {
  pay: OWN_ROWS('payments'),
  wh: OWN_ROWS('webhooks'),
  evt: OWN_ROWS('events'),
  key: OWN_ROWS('api_keys'),
  rcp: OWN_ROWS('recipients'),
  ba: OWN_ROWS('bank_accounts'),
  po: OWN_ROWS('payouts'),
  bf: OWN_ROWS('bank_files'),
  bc: OWN_ROWS('bank_credits'),
  dlv: (db, accountId, id) =>
    db('webhook_deliveries as d')
      .join('webhooks as w', 'w.id', 'd.webhook_id')
      .where({ 'd.id': id, 'w.account_id': accountId })
      .select('w.livemode'),
};

/** The mode (livemode) of the account's object with this id, or undefined when the account has none. */
export async function modeOfObject(db: Knex, accountId: string, id: string): Promise<boolean | undefined> {
  const lookup = LOOKUPS[id.slice(0, id.indexOf('_'))] as Lookup | undefined;
  if (!lookup) return undefined;
  const row = (await lookup(db, accountId, id).first()) as { livemode: boolean } | undefined;
  return row?.livemode;
}
