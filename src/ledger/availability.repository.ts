/**
 * A recipient's pending money made available (docs/money.md, "Pending, then available"; in live mode
 * docs/bank.md, "Live availability"): one `make_available` entry per release and recipient, keyed
 * `available|<payment>|<version>|<recipient>`, whichever road writes it first (the release's own
 * step, the verification, the booking of the payment's funding), each under the recipient's row
 * lock (FOR UPDATE). In test mode the verification keeps its one entry per currency.
 */
import type { Knex } from 'knex';
import { recipientAddress } from './ledger.rules';
import { entryId } from './transfers.repository';
import { postEntry } from './ledgerAccounts.repository';
import { fundingBookedOf } from '../payouts/bankCredits.repository';
import type { RecipientState } from '../recipients/recipients.rules';

/** One release's net to one recipient: what its `make_available` entry moves. */
export interface Release {
  paymentId: string;
  /** The payment's version (its history entry's seq) that released it. */
  seq: number;
  recipientId: string;
  accountId: string;
  livemode: boolean;
  currency: string;
  exponent: number;
  net: bigint;
  /** When it was released. */
  at: Date;
}

/** The key of a release's availability: the same on every road, so it is written once. */
export const availableKey = (r: { paymentId: string; seq: number; recipientId: string }) =>
  `available|${r.paymentId}|${r.seq}|${r.recipientId}`;

/** A recipient whose row the caller holds FOR UPDATE. */
interface Held {
  id: string;
  version: number;
}

/**
 * Move one release's net (or what is left pending, if an older verification moved it with its
 * balance) to available, in `tx`, which holds the recipient's row. False when nothing moved.
 */
export async function makeReleaseAvailable(tx: Knex.Transaction, recipient: Held, release: Release, at: Date): Promise<boolean> {
  const pending = recipientAddress(release.recipientId, 'pending');
  const row = await tx<{ address: string; currency: string; exponent: number; balance_minor: string }>('ledger_account_balances')
    .where({ address: pending, currency: release.currency, exponent: release.exponent })
    .first('balance_minor');
  const held = BigInt(row?.balance_minor ?? 0);
  const amount = held < release.net ? held : release.net;
  if (amount <= 0n) return false;
  return postEntry(tx, {
    idempotencyKey: availableKey(release),
    recipientId: release.recipientId,
    version: recipient.version,
    accountId: release.accountId,
    livemode: release.livemode,
    currency: release.currency,
    exponent: release.exponent,
    type: 'make_available',
    at,
    postings: [
      { account: 'recipient_pending', address: pending, amount: -amount },
      { account: 'recipient_available', address: recipientAddress(release.recipientId, 'available'), amount },
    ],
  });
}

/**
 * The releases to recipients, read from the ledger (a release's entries name the recipient and the
 * payment's version), whose availability is not written yet: those of a payment, or of a recipient.
 */
export async function unmovedReleases(
  db: Knex | Knex.Transaction,
  of: { paymentId: string } | { recipientId: string },
): Promise<Release[]> {
  const { rows } = await db.raw<{
    rows: {
      payment_id: string;
      version: number;
      recipient_id: string;
      account_id: string;
      livemode: boolean;
      currency: string;
      exponent: number;
      net: string;
      at: Date;
    }[];
  }>(
    `SELECT e.payment_id, e.version, e.recipient_id, e.account_id, e.livemode, e.currency, e.exponent,
       sum(p.amount_minor) AS net, max(e.created_at) AS at
     FROM ledger_entries e JOIN ledger_postings p ON p.entry_id = e.id
     WHERE ${'paymentId' in of ? 'e.payment_id = ?' : 'e.recipient_id = ? AND e.payment_id IS NOT NULL'}
       AND e.recipient_id IS NOT NULL AND p.address = 'recipient:' || e.recipient_id || ':pending'
     GROUP BY e.payment_id, e.version, e.recipient_id, e.account_id, e.livemode, e.currency, e.exponent
     HAVING sum(p.amount_minor) > 0
     ORDER BY e.payment_id, e.version, e.recipient_id`,
    ['paymentId' in of ? of.paymentId : of.recipientId],
  );
  const releases: Release[] = rows.map((r) => ({
    paymentId: r.payment_id,
    seq: r.version,
    recipientId: r.recipient_id,
    accountId: r.account_id,
    livemode: r.livemode,
    currency: r.currency,
    exponent: r.exponent,
    net: BigInt(r.net),
    at: new Date(r.at),
  }));
  if (releases.length === 0) return [];
  const written = new Set(
    (
      await db('ledger_entries')
        .whereIn(
          'id',
          releases.map((r) => entryId(availableKey(r))),
        )
        .select('id')
    ).map((r: { id: string }) => r.id),
  );
  return releases.filter((r) => !written.has(entryId(availableKey(r))));
}

/**
 * A recipient's row, locked (FOR UPDATE, as its verification takes it), when its payouts are
 * enabled: the availability steps read the decision under that lock. Undefined otherwise.
 */
export async function enabledRecipientLocked(tx: Knex.Transaction, recipientId: string): Promise<{ version: number } | undefined> {
  const r = await tx<{ id: string; payouts_enabled: boolean; version: number }>('recipients')
    .where({ id: recipientId })
    .forUpdate()
    .first('payouts_enabled', 'version');
  return r?.payouts_enabled ? { version: r.version } : undefined;
}

const later = (a: Date, b: Date) => (a > b ? a : b);

/**
 * A payment's funding was just booked at the bank (docs/bank.md, "Live availability"): its releases
 * still pending move to available for each recipient whose payouts are enabled, one recipient at a
 * time in id order, each under its row's lock. A release projected concurrently reads the booking
 * under the same lock after its own commit, so one of the two sees both, and the key makes it once.
 */
export async function makeBookedReleasesAvailable(db: Knex, paymentId: string): Promise<void> {
  const releases = await unmovedReleases(db, { paymentId });
  const recipients = [...new Set(releases.map((r) => r.recipientId))].sort();
  for (const recipientId of recipients) {
    await db.transaction(async (tx) => {
      const r = await enabledRecipientLocked(tx, recipientId);
      if (!r) return;
      if (!(await fundingBookedOf(tx, [paymentId])).has(paymentId)) return;
      const now = new Date();
      for (const release of releases.filter((x) => x.recipientId === recipientId))
        await makeReleaseAvailable(tx, { id: recipientId, version: r.version }, release, later(now, release.at));
    });
  }
}

/**
 * Payouts just became enabled (docs/money.md), inside the transaction that holds the recipient's row
 * (src/recipients/recipients.repository.ts). Test mode: one entry per currency moves everything
 * pending. Live mode: only the releases of payments whose funding is booked, one entry each under
 * the release's own key; the others follow when their funding is booked (`makeBookedReleasesAvailable`).
 */
export async function makePendingAvailable(tx: Knex.Transaction, r: RecipientState): Promise<void> {
  if (r.livemode) {
    const releases = await unmovedReleases(tx, { recipientId: r.id });
    const booked = await fundingBookedOf(tx, [...new Set(releases.map((x) => x.paymentId))]);
    for (const release of releases.filter((x) => booked.has(x.paymentId)))
      await makeReleaseAvailable(tx, r, release, later(new Date(r.updatedAt), release.at));
    return;
  }
  const pending = recipientAddress(r.id, 'pending');
  const rows = await tx<{ address: string; currency: string; exponent: number; balance_minor: string }>('ledger_account_balances')
    .where('address', pending)
    .andWhere('balance_minor', '>', 0)
    .orderBy(['currency', 'exponent'])
    .select('currency', 'exponent', 'balance_minor');
  for (const row of rows) {
    const amount = BigInt(row.balance_minor);
    await postEntry(tx, {
      idempotencyKey: `recipient|${r.id}|${r.version}|${row.currency}|${row.exponent}`,
      recipientId: r.id,
      version: r.version,
      accountId: r.accountId,
      livemode: r.livemode,
      currency: row.currency,
      exponent: row.exponent,
      type: 'make_available',
      at: new Date(r.updatedAt),
      postings: [
        { account: 'recipient_pending', address: pending, amount: -amount },
        { account: 'recipient_available', address: recipientAddress(r.id, 'available'), amount },
      ],
    });
  }
}
