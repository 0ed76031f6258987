/**
 * The ledger's side of a transition's projection (src/payments/projection.repository.ts): the
 * recipient a step's release credits, and the availability step that follows a release to
 * recipients whose payouts are enabled.
 */
import type { Knex } from 'knex';
import type { HistoryEntry, PaymentState } from '../payments/paymentTypes.rules';
import { ledgerMovements } from '../payments/milestones.rules';
import { enabledRecipientLocked, makeReleaseAvailable } from './availability.repository';
import { fundingBookedOf } from '../payouts/bankCredits.repository';

/** The recipient a milestone's release credits, when the milestone names one and the movement releases money. */
export function creditedRecipient(state: PaymentState, milestoneId: string, released: bigint): string | undefined {
  if (released === 0n) return undefined;
  return state.milestones.find((m) => m.id === milestoneId)?.recipientId ?? undefined;
}

/**
 * The availability step of a release to recipients (docs/money.md, "Pending, then available"): a
 * release always credits each named recipient's `pending`; for a recipient whose payouts are enabled,
 * a `make_available` entry of its own then moves that release's net (or what is left of it pending)
 * to `available`. In live mode only once the payment's funding is booked at the bank (docs/bank.md,
 * "Live availability"); else the booking's own step moves it later (./availability.repository.ts).
 * The decision is the recipient's and, in live mode, the booking's, both read under the recipient's
 * row lock (FOR UPDATE, as the verification and the booking's step take it), in a transaction after
 * the projection's commit, never inside the projection: the release's postings stay a function of
 * the payment's history. Keyed by the payment, the version and the recipient, so a retried or
 * concurrent projection, or the booking's step, moves nothing twice; dated at the release, so `as_of`
 * answers as before.
 */
export async function makeReleasesAvailable(db: Knex, state: PaymentState, entry: HistoryEntry): Promise<void> {
  const nets = new Map<string, bigint>();
  for (const { milestoneId, movement } of ledgerMovements(state, entry)) {
    const recipientId = creditedRecipient(state, milestoneId, movement.released);
    if (recipientId) nets.set(recipientId, (nets.get(recipientId) ?? 0n) + movement.released - movement.fee);
  }
  // One recipient at a time, in id order: never two recipients' rows held crosswise.
  for (const [recipientId, net] of [...nets].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (net <= 0n) continue;
    await db.transaction(async (tx) => {
      const r = await enabledRecipientLocked(tx, recipientId);
      if (!r) return;
      // Read after the lock, so a booking committed meanwhile is seen here or its step sees this release.
      if (state.livemode && !(await fundingBookedOf(tx, [state.id])).has(state.id)) return;
      const release = {
        paymentId: state.id,
        seq: entry.seq,
        recipientId,
        accountId: state.accountId,
        livemode: state.livemode,
        currency: state.currency,
        exponent: state.amountExponent,
        net,
        at: new Date(entry.at),
      };
      // A test-mode verification may have moved it already (wholly before this step, under the same lock): what is left pending moves.
      await makeReleaseAvailable(tx, { id: recipientId, version: r.version }, release, release.at);
    });
  }
}
