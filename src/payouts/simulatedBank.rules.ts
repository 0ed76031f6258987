/**
 * The simulated bank of test mode (docs/payouts.md): the last four digits of the account number (or
 * IBAN) decide a payout's story. Pure: safe inside the Temporal workflow sandbox.
 */
import { type PayoutFailureCode, type PayoutStatus, checkPayoutTransition } from './payout.rules';

const DAY = 86_400;

/** One step the simulated bank takes, `afterSeconds` after the payout's creation on its own clock. */
export interface SimulatedBankStep {
  afterSeconds: number;
  action: 'send' | 'pay' | 'fail' | 'return';
  failureCode?: PayoutFailureCode;
}

/** The simulated bank takes a payout an hour after its creation (as a live payout waits for its file), so a test payout can be canceled first. */
export const SIMULATED_SEND_AFTER_SECONDS = 3600;

const SEND: SimulatedBankStep = { afterSeconds: SIMULATED_SEND_AFTER_SECONDS, action: 'send' };

/** Each magic ending's story; any other ending is paid as `0000` is. */
export const SIMULATED_BANK: Readonly<Record<'0000' | '0001' | '0002', readonly SimulatedBankStep[]>> = {
  '0000': [SEND, { afterSeconds: DAY, action: 'pay' }],
  '0001': [SEND, { afterSeconds: DAY, action: 'fail', failureCode: 'no_account' }],
  '0002': [SEND, { afterSeconds: DAY, action: 'pay' }, { afterSeconds: 3 * DAY, action: 'return', failureCode: 'account_closed' }],
};

/** The simulated bank's steps for an account whose number (or IBAN) ends in `last4`. */
export function simulatedBankSteps(last4: string): readonly SimulatedBankStep[] {
  return Object.hasOwn(SIMULATED_BANK, last4) ? SIMULATED_BANK[last4 as keyof typeof SIMULATED_BANK] : SIMULATED_BANK['0000'];
}

/** The steps due once the payout's clock reads `elapsedSeconds` since creation, of which `taken` are already taken. */
export function dueSimulatedSteps(last4: string, elapsedSeconds: number, taken = 0): readonly SimulatedBankStep[] {
  return simulatedBankSteps(last4)
    .slice(taken)
    .filter((step) => step.afterSeconds <= elapsedSeconds);
}

/**
 * The simulated bank's next step for a payout in `status`: the first of its story the payout's
 * status allows (a canceled or failed payout has none, a paid `0000` none, a paid `0002` its return).
 * The workflow sleeps until `afterSeconds` on the payout's clock, then takes it.
 */
export function nextSimulatedStep(last4: string, status: PayoutStatus): SimulatedBankStep | undefined {
  return simulatedBankSteps(last4).find((step) => checkPayoutTransition(status, step.action).ok);
}
