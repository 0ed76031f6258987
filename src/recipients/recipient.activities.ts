/**
 * A recipient's activity (docs/money.md): its pending money made available, under its row's lock,
 * in one transaction. Idempotent: what is pending is read under the lock, so a retry moves nothing twice.
 */
import { makePendingAvailable } from '../ledger/availability.repository';
import type { ActivityResources } from '../platform/activityResources';
import { lockRecipient } from './recipients.repository';

export function recipientActivities({ db }: ActivityResources) {
  return {
    async makeRecipientPendingAvailable(input: { recipientId: string; version: number }): Promise<void> {
      await db.transaction(async (tx) => {
        const r = await lockRecipient(tx, input.recipientId);
        // Only while its payouts are still enabled: a later report that disabled them keeps the money pending.
        // The amounts are read under the lock a release's own move takes too (src/ledger/availability.repository.ts): nothing moves twice.
        if (r?.payoutsEnabled) await makePendingAvailable(tx, r);
      });
    },
  };
}
