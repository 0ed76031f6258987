/** A ledger `Movement` as it crosses JSON. */
import type { Movement } from './ledger';

/** A `Movement` as it crosses JSON (activity arguments, update results, history). */
export interface MovementRecord {
  deposited: string;
  refunded: string;
  released: string;
  fee: string;
}

export const movementRecord = (m: Movement): MovementRecord => ({
  deposited: m.deposited.toString(),
  refunded: m.refunded.toString(),
  released: m.released.toString(),
  fee: m.fee.toString(),
});

export const movementOf = (r: MovementRecord): Movement => ({
  deposited: BigInt(r.deposited),
  refunded: BigInt(r.refunded),
  released: BigInt(r.released),
  fee: BigInt(r.fee),
});
