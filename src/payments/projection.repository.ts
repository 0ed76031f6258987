/**
 * A transition's projection as one SQL statement (data-modifying CTEs): the read model's row, the
 * history entry, its events, the ledger entry with its postings and balances, and, for the workflow's
 * publication, the custody trail's leaves and the deliveries the events owe. One statement is one
 * round trip and atomic on its own, where a statement per table would be about a dozen
 * (docs/benchmarks.md).
 *
 * One writer: the workflow's publication activity (`projectAndPlan`), whose update answers once it
 * has committed (docs/architecture.md, "One writer per aggregate"); the API's database role only reads
 * what it writes (docs/security.md). A transition's leaf is in the statement; its ledger entries'
 * leaves follow it, from the stored entries (`appendLeavesOfEntries`,
 * src/ledger/ledgerAccounts.repository.ts: the one path of an entry's leaf).
 *
 * The rules are those of each repository (src/payments/payments.repository.ts, ledger.ts, events.ts, audit.ts),
 * kept here in SQL with the deliveries' own (./deliveryPlan.ts: one per subscribed, active
 * configuration, its id derived): every row is idempotent by its natural key, the row only moves to
 * a higher version, and the ledger's postings and balances are written only by the statement that
 * wrote the entry (the ledger's one writer, src/ledger/transfers.repository.ts), so a retried or
 * concurrent projection never moves a balance twice.
 *
 * `ON CONFLICT DO NOTHING` names no constraint on purpose: a named one is the only arbiter, and a
 * concurrent writer's row then fails the table's other unique index (events and ledger entries have
 * two) with a unique violation instead of being skipped. A publication's attempt that timed out may
 * still run beside its retry (test/projection.test.ts).
 *
 * Lock order: every writer of a projection goes through `projectionCtes`, so every writer takes the
 * same rows in the same order (PostgreSQL runs the CTEs in an order fixed by the statement's shape)
 * and two writers never wait on each other crosswise. The availability step of a release to
 * recipients follows in a transaction of its own (`makeReleasesAvailable`): it takes the recipient's
 * row, then its balances, as the verification does.
 */
import type { Knex } from 'knex';
import { transitionLeaf } from '../audit/trailLeaves.rules';
import { LEAF_COLUMNS } from '../audit/trail.repository';
import { Bindings, leafValues } from '../platform/database/statement';
import { entryTypeOf, transfersOf } from '../ledger/ledger.rules';
import { type EntryToPost, entryId, ledgerCtes, paymentEntryKey } from '../ledger/transfers.repository';
import type { HistoryEntry } from './paymentTypes.rules';
import type { PaymentDetails } from './paymentRecord.rules';
import { ledgerMovements } from './milestones.rules';
import { paymentView } from './payment.view';
import { isReasonHash, leafReason } from './personalData.rules';
import { emittedEvents } from './transitionEvents.rules';
import type { TransitionEnvelope } from '../webhooks/webhookEnvelope.view';
import { eventId } from '../webhooks/events.repository';
import { PAYMENT_COLUMNS, PAYMENT_PROJECTED_COLUMNS, toRow } from './payments.repository';
import { type PlannedDelivery, deliveryCtes, planned } from '../webhooks/deliveryPlan.repository';
import { creditedRecipient, makeReleasesAvailable } from '../ledger/paymentPostings.repository';
import { appendLeavesOfEntries } from '../ledger/ledgerAccounts.repository';
import { BANK_CUSTODY, bankCreditAddress, escrowAddress } from '../ledger/ledger.rules';
import type { ReceivedCredit } from './paymentTypes.rules';
import { defaultMilestoneId } from './milestones.rules';
import { fundingReferenceOf } from './fundingReference.rules';

/**
 * The ledger entry of a credit a payment took (docs/bank.md): what it took, from the custody account
 * at the bank (`bank:custody`) into its custody, with the booking it came from; none when it took
 * nothing. The excess of an overpayment is the unapplied credit's own entry.
 */
function bankFundingEntries(state: PaymentDetails, entry: HistoryEntry, credit: ReceivedCredit): EntryToPost[] {
  if (credit.appliedMinor <= 0n) return [];
  return [
    {
      key: paymentEntryKey(state.id, entry.seq),
      code: credit.applied ? 'bank_credit_applied' : 'bank_funding',
      paymentId: state.id,
      milestoneId: defaultMilestoneId(state.id),
      recipientId: null,
      version: entry.seq,
      accountId: state.accountId,
      livemode: state.livemode,
      currency: state.currency,
      exponent: state.amountExponent,
      at: new Date(entry.at),
      ...(credit.applied
        ? // An unapplied credit applied: its money was booked when it came, and moves from its own account.
          {
            transfers: [{ debit: bankCreditAddress(credit.id), credit: escrowAddress(state.id), amount: credit.appliedMinor }],
          }
        : {
            transfers: [{ debit: BANK_CUSTODY, credit: escrowAddress(state.id), amount: credit.appliedMinor }],
            bank: { bookedOn: credit.bookedOn, reference: fundingReferenceOf(state.id), entryRef: credit.bankEntryRef },
          }),
    },
  ];
}

/**
 * A payment funded by transfer cancelled short (its deadline, or a cancel) with money received: what
 * it received becomes an unapplied credit of its account (docs/bank.md), `escrow:pay_… →
 * bank_credit:bc_…`, the credit's id derived from the payment's so that every writer writes one.
 */
function shortCredit(state: PaymentDetails, entry: HistoryEntry): { id: string; entry: EntryToPost } | undefined {
  const received = state.amountReceivedMinor ?? 0n;
  if (entry.to !== 'cancelled' || entry.from !== 'pending_deposit' || received <= 0n) return undefined;
  const id = `bc_${state.id.replace(/^pay_/, '')}`;
  return {
    id,
    entry: {
      key: paymentEntryKey(state.id, entry.seq),
      code: 'bank_credit_received',
      paymentId: state.id,
      milestoneId: defaultMilestoneId(state.id),
      recipientId: null,
      version: entry.seq,
      accountId: state.accountId,
      livemode: state.livemode,
      currency: state.currency,
      exponent: state.amountExponent,
      at: new Date(entry.at),
      transfers: [{ debit: escrowAddress(state.id), credit: bankCreditAddress(id), amount: received }],
    },
  };
}

/**
 * The CTEs that write the projection of one history entry and its transition's leaf; and the ids of
 * its ledger entries, whose leaves are appended from what is stored.
 */
function projectionCtes(
  b: Bindings,
  state: PaymentDetails,
  entry: HistoryEntry,
  reasonKey: Buffer,
): { ctes: string[]; entryIds: string[] } {
  // A client's reason crosses Temporal as its keyed hash; the text is the one the API kept for it.
  // A function: bindings are added in the order the text reads (src/platform/database/statement.ts).
  const reason = () =>
    isReasonHash(entry.reason)
      ? `coalesce((SELECT reason FROM payment_reasons WHERE payment_id = ${b.add(state.id, 'text')} AND reason_hash = ${b.add(
          entry.reason,
          'text',
        )}), ${b.add(entry.reason, 'text')})`
      : b.add(entry.reason, 'text');
  const row = toRow(state);
  const ctes = [
    `payment AS (
      INSERT INTO payments (${PAYMENT_COLUMNS.join(', ')}) VALUES (${b.list(PAYMENT_COLUMNS.map((c) => row[c]))})
      ON CONFLICT (id) DO UPDATE SET ${PAYMENT_PROJECTED_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ')}
      -- Only durable states are written, so the same version is the same state (src/payments/payments.repository.ts).
      WHERE payments.version <= excluded.version
      RETURNING 1)`,
    `history AS (
      INSERT INTO payment_events (payment_id, seq, action, from_status, to_status, event, actor, reason, at, milestone_id)
      VALUES (${b.list([state.id, entry.seq, entry.action, entry.from, entry.to, entry.event, entry.actor])}, ${reason()}, ${b.add(new Date(entry.at))}, ${b.add(entry.milestoneId ?? null, 'text')})
      ON CONFLICT DO NOTHING RETURNING 1)`,
    // The entry's events in order (a split's refunded part before its release: src/payments/transitionEvents.rules.ts).
    `event AS (
      INSERT INTO events (id, account_id, livemode, payment_id, type, sequence, ordinal, data, created_at, milestone_id)
      VALUES ${emittedEvents(state, entry)
        .map(
          (e) => `(${b.add(eventId(state.id, entry.seq, e.ordinal), 'text')}, ${b.add(state.accountId, 'text')},
        ${b.add(state.livemode, 'boolean')}, ${b.add(state.id, 'text')}, ${b.add(e.event, 'text')}, ${b.add(entry.seq, 'integer')},
        ${b.add(e.ordinal, 'smallint')}, ${b.add(JSON.stringify(paymentView(e.state)), 'jsonb')}, ${b.add(new Date(entry.at), 'timestamptz')},
        ${b.add(e.milestoneId ?? null, 'text')})`,
        )
        .join(', ')}
      ON CONFLICT DO NOTHING RETURNING 1)`,
  ];
  // A leaf is never erased: its reason is a keyed hash, never the text (docs/audit.md).
  const leaf = transitionLeaf(state, { ...entry, reason: leafReason(reasonKey, entry.reason) });
  const exponent = state.amountExponent;
  // A credit the bank booked: its money came from the custody account at the bank, not from a deposit the platform reported.
  const entries = entry.credit
    ? bankFundingEntries(state, entry, entry.credit)
    : ledgerMovements(state, entry).map(({ milestoneId, movement }) => {
        const recipientId = creditedRecipient(state, milestoneId, movement.released);
        const transfers = transfersOf(movement, { paymentId: state.id, recipientId });
        const post: EntryToPost = {
          key: paymentEntryKey(state.id, entry.seq, state.staged ? milestoneId : undefined),
          code: entryTypeOf(movement),
          paymentId: state.id,
          milestoneId,
          recipientId: recipientId ?? null,
          version: entry.seq,
          accountId: state.accountId,
          livemode: state.livemode,
          currency: state.currency,
          exponent,
          at: new Date(entry.at),
          transfers,
        };
        return post;
      });
  const short = shortCredit(state, entry);
  if (short) {
    entries.push(short.entry);
    // Its row, in this statement: an unapplied credit of the payment's account (docs/bank.md).
    ctes.push(`short_credit AS (
      INSERT INTO bank_credits (id, account_id, livemode, amount_minor, currency, exponent, reference, status, payment_id, booked_on, entry_key, created_at, updated_at)
      VALUES (${b.add(short.id, 'text')}, ${b.add(state.accountId, 'text')}, ${b.add(state.livemode, 'boolean')}, ${b.add(
        short.entry.transfers[0].amount.toString(),
        'bigint',
      )}, ${b.add(state.currency, 'text')}, ${b.add(exponent, 'smallint')}, ${b.add(fundingReferenceOf(state.id), 'text')}, 'unapplied',
        ${b.add(state.id, 'text')}, ${b.add(entry.at.slice(0, 10), 'date')}, ${b.add(`${state.id}|cancelled-short`, 'text')},
        ${b.add(new Date(entry.at), 'timestamptz')}, ${b.add(new Date(entry.at), 'timestamptz')})
      ON CONFLICT DO NOTHING RETURNING 1)`);
  }
  // The ledger's one writer (src/ledger/transfers.repository.ts), in this statement.
  ctes.push(...ledgerCtes(b, entries));
  const entryIds = entries.map((e) => entryId(e.key));
  const columns = LEAF_COLUMNS.map(([c]) => c).join(', ');
  // The transition's leaf (docs/audit.md); its ledger entries' follow from what is stored (`appendLeavesOfEntries`).
  ctes.push(`leaves AS (
    INSERT INTO audit_leaves (${columns}) VALUES (${leafValues(b, leaf)})
    ON CONFLICT DO NOTHING RETURNING entry_key)`);
  return { ctes, entryIds };
}

/**
 * Project a payment and one history entry into the read model, history, events, ledger and trail:
 * the publication's projection (`projectAndPlan`) without deliveries to plan; then the availability
 * step of its releases to recipients (docs/money.md), in a transaction of its own. Idempotent and
 * monotonic (see above).
 */
export async function projectPayment(db: Knex, payment: PaymentDetails, entry: HistoryEntry, reasonKey: Buffer): Promise<void> {
  const b = new Bindings();
  const { ctes, entryIds } = projectionCtes(b, payment, entry, reasonKey);
  await db.raw(`WITH ${ctes.join(',\n')}\nSELECT 1`, b.values as Knex.RawBinding[]);
  await appendLeavesOfEntries(db, entryIds);
  await makeReleasesAvailable(db, payment, entry);
}

/** The projection, and the deliveries its events owe (`deliveryCtes`, the envelopes in order), in the same statement. */
export async function projectAndPlan(
  db: Knex,
  payment: PaymentDetails,
  entry: HistoryEntry,
  envelopes: TransitionEnvelope[],
  reasonKey: Buffer,
): Promise<PlannedDelivery[]> {
  const b = new Bindings();
  const projection = projectionCtes(b, payment, entry, reasonKey);
  const { ctes, parts } = deliveryCtes(b, payment, envelopes, payment.version);
  const { deliveries } = await planned(db, b, [...projection.ctes, ...ctes], parts);
  await appendLeavesOfEntries(db, projection.entryIds);
  await makeReleasesAvailable(db, payment, entry);
  return deliveries;
}
