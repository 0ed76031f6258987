/**
 * What a payout in each status has written to the ledger (the ledger check's reference:
 * src/ledger/payoutCheck.repository.ts, docs/money.md "Payouts in the check"), from the state machine of
 * src/payouts/payout.rules.ts.
 */
import {
  PAYOUT_CREATION,
  PAYOUT_TRANSITIONS,
  type PayoutAction,
  type PayoutEntryType,
  type PayoutMovement,
  type PayoutStatus,
  payoutPostings,
} from './payout.rules';

/** The steps that bring a payout to each status, from its creation (the state machine above, walked back). */
const PATH_TO: Readonly<Record<PayoutStatus, readonly PayoutAction[]>> = {
  pending: [],
  in_transit: ['send'],
  paid: ['send', 'pay'],
  failed: ['fail'],
  canceled: ['cancel'],
  returned: ['send', 'pay', 'return'],
};

/** The movements a payout in `status` has made: its creation's, then each money-moving step's on its way there. */
function movementsTo(status: PayoutStatus): { entryType: PayoutEntryType; movement: PayoutMovement }[] {
  const steps = PATH_TO[status].flatMap((action) => PAYOUT_TRANSITIONS.filter((t) => t.action === action).slice(0, 1));
  return [
    { entryType: PAYOUT_CREATION.entryType, movement: PAYOUT_CREATION.movement },
    ...steps.flatMap((t) => (t.movement && t.entryType ? [{ entryType: t.entryType, movement: t.movement }] : [])),
  ];
}

/** The ledger entries a payout in `status` has, one per type (the ledger check compares them: docs/money.md). */
export const expectedPayoutEntries = (status: PayoutStatus): PayoutEntryType[] => movementsTo(status).map((m) => m.entryType);

/** What a payout in `status` has moved on its recipient's balances, net (minor units). */
export function expectedPayoutNet(status: PayoutStatus, amount: bigint): Record<'available' | 'in_transit' | 'paid_out', bigint> {
  const net = { available: 0n, in_transit: 0n, paid_out: 0n };
  for (const { movement } of movementsTo(status))
    for (const p of payoutPostings(movement, amount)) net[p.balance as keyof typeof net] += p.amount;
  return net;
}
