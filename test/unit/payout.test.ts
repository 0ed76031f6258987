/** The payout rules as data (src/payouts/payout.rules.ts): transitions, ledger movements, failure codes, the simulated bank. */
import { describe, expect, it } from 'vitest';
import {
  BANK_ACCOUNT_FAILURE_CODES,
  PAYOUT_ACTIONS,
  PAYOUT_CREATION,
  PAYOUT_FAILURE_CODES,
  PAYOUT_FAILURE_MESSAGES,
  PAYOUT_STATUSES,
  PAYOUT_TRANSITIONS,
  checkPayoutCreation,
  checkPayoutTransition,
  endToEndIdOf,
  failureCodeOfIsoReason,
  isTerminalPayout,
  payoutAllowedFrom,
  payoutBalances,
  payoutEntryKey,
  payoutPostings,
} from '../../src/payouts/payout.rules';
import {
  SIMULATED_SEND_AFTER_SECONDS,
  dueSimulatedSteps,
  nextSimulatedStep,
  simulatedBankSteps,
} from '../../src/payouts/simulatedBank.rules';

const DAY = 86_400;

describe('payout transitions', () => {
  it('are exactly the contract: pending → in_transit → paid, pending → canceled, pending|in_transit → failed, paid → returned', () => {
    const edges = PAYOUT_TRANSITIONS.flatMap((t) => t.from.map((from) => `${from} -${t.action}-> ${t.to}`)).sort();
    expect(edges).toEqual(
      [
        'in_transit -fail-> failed',
        'in_transit -pay-> paid',
        'paid -return-> returned',
        'pending -cancel-> canceled',
        'pending -fail-> failed',
        'pending -send-> in_transit',
      ].sort(),
    );
  });

  it('allow every action only from its statuses, and nothing from failed, canceled or returned', () => {
    for (const status of PAYOUT_STATUSES) {
      for (const action of PAYOUT_ACTIONS) {
        const allowed = payoutAllowedFrom(action).includes(status);
        const check = checkPayoutTransition(status, action);
        expect(check.ok, `${action} from ${status}`).toBe(allowed);
        if (!check.ok) expect(check.message).toBe(`cannot ${action} a payout whose status is ${status}`);
      }
      if (isTerminalPayout(status)) expect(PAYOUT_ACTIONS.filter((a) => checkPayoutTransition(status, a).ok)).toEqual([]);
    }
    expect(isTerminalPayout('paid')).toBe(false);
    expect(payoutAllowedFrom('cancel')).toEqual(['pending']);
  });

  it('emit one payout.* event each, except send, and each money-moving step its own ledger entry', () => {
    expect(PAYOUT_TRANSITIONS.map((t) => [t.action, t.event, t.entryType])).toEqual([
      ['send', null, null],
      ['pay', 'payout.paid', 'payout_paid'],
      ['cancel', 'payout.canceled', 'payout_canceled'],
      ['fail', 'payout.failed', 'payout_failed'],
      ['return', 'payout.returned', 'payout_returned'],
    ]);
    expect(PAYOUT_CREATION).toMatchObject({ to: 'pending', event: 'payout.created', entryType: 'payout' });
    expect(payoutEntryKey('po_1', 'payout_paid')).toBe('po_1:payout_paid');
  });
});

describe('payout ledger movements', () => {
  it('creation moves available → in_transit, paid in_transit → paid_out, failed/canceled/returned back to available', () => {
    expect(PAYOUT_CREATION.movement).toEqual({ from: 'available', to: 'in_transit' });
    const movement = (action: string) => PAYOUT_TRANSITIONS.find((t) => t.action === action)?.movement;
    expect(movement('send')).toBeNull();
    expect(movement('pay')).toEqual({ from: 'in_transit', to: 'paid_out' });
    expect(movement('fail')).toEqual({ from: 'in_transit', to: 'available' });
    expect(movement('cancel')).toEqual({ from: 'in_transit', to: 'available' });
    expect(movement('return')).toEqual({ from: 'paid_out', to: 'available' });
  });

  it('leave the whole amount on one balance after every story, and the recipient whole after a failure, cancel or return', () => {
    const none = { pending: 0n };
    expect(payoutBalances(500n, [])).toEqual({ ...none, available: -500n, in_transit: 500n, paid_out: 0n });
    expect(payoutBalances(500n, ['in_transit', 'paid'])).toEqual({ ...none, available: -500n, in_transit: 0n, paid_out: 500n });
    for (const story of [['canceled'], ['failed'], ['in_transit', 'failed'], ['in_transit', 'paid', 'returned']] as const) {
      expect(payoutBalances(500n, story), story.join(' → ')).toEqual({ pending: 0n, available: 0n, in_transit: 0n, paid_out: 0n });
    }
    expect(() => payoutBalances(500n, ['paid'])).toThrow('no payout transition from pending to paid');
  });

  it('post a debit and a credit of the same positive amount', () => {
    expect(payoutPostings({ from: 'available', to: 'in_transit' }, 1050n)).toEqual([
      { balance: 'available', amount: -1050n },
      { balance: 'in_transit', amount: 1050n },
    ]);
    expect(() => payoutPostings({ from: 'available', to: 'in_transit' }, 0n)).toThrow(RangeError);
  });
});

describe('payout failures', () => {
  it('has the seven codes of the contract, a message each, and the first five mark the bank account', () => {
    expect(PAYOUT_FAILURE_CODES).toHaveLength(7);
    for (const code of PAYOUT_FAILURE_CODES) expect(PAYOUT_FAILURE_MESSAGES[code]).toMatch(/\.$/);
    expect(BANK_ACCOUNT_FAILURE_CODES).toEqual(PAYOUT_FAILURE_CODES.slice(0, 5));
    expect(BANK_ACCOUNT_FAILURE_CODES).not.toContain('declined');
    expect(BANK_ACCOUNT_FAILURE_CODES).not.toContain('could_not_process');
  });

  it('maps ISO reason codes: AC04, AC01, AC06, AM04 by name, every other to could_not_process', () => {
    expect(failureCodeOfIsoReason('AC04')).toBe('account_closed');
    expect(failureCodeOfIsoReason('AC01')).toBe('invalid_account_number');
    expect(failureCodeOfIsoReason('AC06')).toBe('account_frozen');
    expect(failureCodeOfIsoReason('AM04')).toBe('declined');
    for (const other of ['MS03', 'AG01', 'ac04', 'toString', '', null, undefined]) {
      expect(failureCodeOfIsoReason(other), String(other)).toBe('could_not_process');
    }
  });
});

describe('end_to_end_id', () => {
  it('is the payout id within the SEPA character set and 35 characters', () => {
    expect(endToEndIdOf('po_01JDZ6R0A1B2C3D4E5F6G7H8J9')).toBe('po-01JDZ6R0A1B2C3D4E5F6G7H8J9');
    expect(() => endToEndIdOf(`po_${'A'.repeat(40)}`)).toThrow(RangeError);
  });
});

describe('the simulated bank', () => {
  it('pays an account ending 0000 one day after creation, after taking it an hour in', () => {
    expect(dueSimulatedSteps('0000', SIMULATED_SEND_AFTER_SECONDS - 1)).toEqual([]);
    expect(dueSimulatedSteps('0000', SIMULATED_SEND_AFTER_SECONDS).map((s) => s.action)).toEqual(['send']);
    expect(dueSimulatedSteps('0000', DAY - 1).map((s) => s.action)).toEqual(['send']);
    expect(dueSimulatedSteps('0000', DAY).map((s) => s.action)).toEqual(['send', 'pay']);
    expect(dueSimulatedSteps('0000', DAY, 1).map((s) => s.action)).toEqual(['pay']);
  });

  it('fails 0001 with no_account, and pays 0002 then returns it with account_closed two days later', () => {
    expect(dueSimulatedSteps('0001', 10 * DAY)).toEqual([
      { afterSeconds: SIMULATED_SEND_AFTER_SECONDS, action: 'send' },
      { afterSeconds: DAY, action: 'fail', failureCode: 'no_account' },
    ]);
    expect(dueSimulatedSteps('0002', 3 * DAY - 1).map((s) => s.action)).toEqual(['send', 'pay']);
    expect(dueSimulatedSteps('0002', 3 * DAY).at(-1)).toEqual({ afterSeconds: 3 * DAY, action: 'return', failureCode: 'account_closed' });
  });

  it("pays any other ending as 0000, and every story's steps are transitions the table allows, in time order", () => {
    expect(simulatedBankSteps('6789')).toEqual(simulatedBankSteps('0000'));
    expect(simulatedBankSteps('constructor')).toEqual(simulatedBankSteps('0000'));
    for (const last4 of ['0000', '0001', '0002']) {
      let status = 'pending' as (typeof PAYOUT_STATUSES)[number];
      let at = 0;
      for (const step of simulatedBankSteps(last4)) {
        expect(step.afterSeconds).toBeGreaterThanOrEqual(at);
        at = step.afterSeconds;
        const check = checkPayoutTransition(status, step.action);
        expect(check.ok, `${last4}: ${step.action} from ${status}`).toBe(true);
        if (check.ok) status = check.transition.to;
      }
    }
  });
});

describe('creating a payout', () => {
  const eurDefault = { id: 'ba_eur', currency: 'EUR', payable: true, defaultForCurrency: true };
  const base = { payoutsEnabled: true, currency: 'EUR', available: 5000n, bankAccounts: [eurDefault] };

  it('goes to the default account in its currency, for everything available unless an amount is given', () => {
    expect(checkPayoutCreation(base)).toEqual({ ok: true, bankAccountId: 'ba_eur', amount: 5000n });
    expect(checkPayoutCreation({ ...base, amount: 1200n })).toEqual({ ok: true, bankAccountId: 'ba_eur', amount: 1200n });
    const other = { id: 'ba_2', currency: 'EUR', payable: true, defaultForCurrency: false };
    expect(checkPayoutCreation({ ...base, bankAccounts: [eurDefault, other], bankAccountId: 'ba_2' })).toMatchObject({
      ok: true,
      bankAccountId: 'ba_2',
    });
  });

  it('refuses in the order of the contract: payouts enabled, then a payable bank account, then the balance', () => {
    const code = (input: Parameters<typeof checkPayoutCreation>[0]) => {
      const check = checkPayoutCreation(input);
      return check.ok ? 'ok' : check.refusal.code;
    };
    const everythingWrong = { ...base, payoutsEnabled: false, bankAccounts: [], amount: 9999n };
    expect(code(everythingWrong)).toBe('payouts_not_enabled');
    expect(code({ ...everythingWrong, payoutsEnabled: true })).toBe('no_payable_bank_account');
    expect(code({ ...everythingWrong, payoutsEnabled: true, bankAccounts: [eurDefault] })).toBe('insufficient_available_balance');
    expect(checkPayoutCreation({ ...base, amount: 5001n })).toEqual({
      ok: false,
      refusal: { code: 'insufficient_available_balance', message: expect.any(String), available: 5000n },
    });
    expect(code({ ...base, available: 0n })).toBe('insufficient_available_balance');
  });

  it('an errored, disabled or other-currency account, or none by default, is no payable bank account; an unknown one is named', () => {
    const code = (input: Parameters<typeof checkPayoutCreation>[0]) => {
      const check = checkPayoutCreation(input);
      return check.ok ? 'ok' : `${check.refusal.code}: ${check.refusal.message}`;
    };
    expect(code({ ...base, bankAccounts: [{ ...eurDefault, payable: false }] })).toBe(
      'no_payable_bank_account: no payable bank account: bank account ba_eur is errored or disabled',
    );
    expect(code({ ...base, currency: 'GBP' })).toBe(
      'no_payable_bank_account: no payable bank account: the recipient has no default bank account in GBP',
    );
    expect(code({ ...base, currency: 'GBP', bankAccountId: 'ba_eur' })).toBe(
      'no_payable_bank_account: no payable bank account: bank account ba_eur receives EUR, not GBP',
    );
    expect(code({ ...base, bankAccountId: 'ba_nope' })).toBe("unknown_bank_account: bank_account ba_nope is not one of the recipient's");
    expect(() => checkPayoutCreation({ ...base, amount: 0n })).toThrow(RangeError);
  });
});

describe("the simulated bank's next step", () => {
  it('follows the payout: pending is sent, in_transit paid or failed, a paid 0002 returned, and then nothing', () => {
    const next = (last4: string, status: (typeof PAYOUT_STATUSES)[number]) => nextSimulatedStep(last4, status)?.action ?? null;
    expect(PAYOUT_STATUSES.map((s) => next('0000', s))).toEqual(['send', 'pay', null, null, null, null]);
    expect(PAYOUT_STATUSES.map((s) => next('0001', s))).toEqual(['send', 'fail', null, null, null, null]);
    expect(PAYOUT_STATUSES.map((s) => next('0002', s))).toEqual(['send', 'pay', 'return', null, null, null]);
    expect(nextSimulatedStep('0002', 'paid')).toEqual({ afterSeconds: 3 * DAY, action: 'return', failureCode: 'account_closed' });
  });
});
