/**
 * A recipient's bank accounts (docs/payouts.md, "Bank accounts"): the account numbers a payout may
 * go to, checked by maintained libraries (IBAN mod 97 by ibantools, US routing numbers' ABA
 * checksum by abavalidator), what the API shows of them (`last4`, a keyed `fingerprint`), their
 * statuses, and the failures that mark one `errored`. Pure (node:crypto only, no I/O); sealing
 * the full number at rest is src/platform/lib/sealedBox.ts's.
 */
import { createHmac, hkdfSync } from 'node:crypto';
import { validate as validAbaChecksum } from 'abavalidator';
import { ValidationErrorsIBAN, electronicFormatIBAN, validateIBAN } from 'ibantools';
import { BANK_ACCOUNT_FAILURE_CODES, type PayoutFailureCode } from './payout.rules';
import type { Scope } from '../tenants/tenancy.rules';

export const BANK_ACCOUNT_STATUSES = ['new', 'verified', 'errored', 'disabled'] as const;
export type BankAccountStatus = (typeof BANK_ACCOUNT_STATUSES)[number];

/** Statuses a payout may go to: an errored account failed a payout for a reason of its own, a disabled one was turned off. */
export const PAYABLE_BANK_ACCOUNT_STATUSES: readonly BankAccountStatus[] = ['new', 'verified'];

export const isPayableBankAccount = (status: BankAccountStatus): boolean => PAYABLE_BANK_ACCOUNT_STATUSES.includes(status);

/** Whether a payout's failure says the account itself is unusable (closed, unknown, frozen, misnamed). */
export const marksBankAccountErrored = (code: PayoutFailureCode): boolean => BANK_ACCOUNT_FAILURE_CODES.includes(code);

/** The account's status after one of its payouts failed (or came back) with `code`; a disabled account stays disabled. */
export function bankAccountStatusAfterFailure(status: BankAccountStatus, code: PayoutFailureCode): BankAccountStatus {
  return status !== 'disabled' && marksBankAccountErrored(code) ? 'errored' : status;
}

/** ISO 20022's Max140Text: the longest name a credit transfer carries. */
export const ACCOUNT_HOLDER_NAME_MAX = 140;

/** A bank account as a client gives it: an IBAN, or for the US a routing and an account number. */
export interface BankAccountNumberInput {
  country: string;
  currency: string;
  iban?: string | undefined;
  routing_number?: string | undefined;
  account_number?: string | undefined;
}

/** A checked account number in its one canonical form (an IBAN in electronic format, digits only). */
export type BankAccountNumber = { scheme: 'iban'; iban: string } | { scheme: 'us_aba'; routingNumber: string; accountNumber: string };

export interface BankAccountProblem {
  field: 'iban' | 'routing_number' | 'account_number' | 'country' | 'currency';
  message: string;
}

type NumberCheck = { ok: true; number: BankAccountNumber } | { ok: false; problem: BankAccountProblem };

const refuse = (field: BankAccountProblem['field'], message: string): NumberCheck => ({ ok: false, problem: { field, message } });

const IBAN_PROBLEMS: Partial<Record<ValidationErrorsIBAN, string>> = {
  [ValidationErrorsIBAN.NoIBANCountry]: 'iban does not start with a country that uses IBANs',
  [ValidationErrorsIBAN.WrongBBANLength]: 'iban has the wrong length for its country',
  [ValidationErrorsIBAN.WrongBBANFormat]: "iban's account part is not in its country's format",
  [ValidationErrorsIBAN.ChecksumNotNumber]: "iban's check digits (characters 3 and 4) are not digits",
  [ValidationErrorsIBAN.WrongIBANChecksum]: 'iban fails its check digits (mod 97): a character is mistyped',
  [ValidationErrorsIBAN.WrongAccountBankBranchChecksum]: "iban fails its country's own account checksum",
  [ValidationErrorsIBAN.QRIBANNotAllowed]: 'iban is a Swiss QR-IBAN, which receives QR-bill payments only',
};

/**
 * The first two digits of a US routing number: the Federal Reserve district (01–12), as a thrift
 * (21–32) or electronic (61–72) institution, the US government (00) or traveler's checks (80).
 * The ABA checksum alone lets through numbers no bank has.
 */
function isRoutingPrefix(routingNumber: string): boolean {
  const prefix = Number(routingNumber.slice(0, 2));
  return prefix <= 12 || (prefix >= 21 && prefix <= 32) || (prefix >= 61 && prefix <= 72) || prefix === 80;
}

/** Check a bank account's number: an IBAN of `country`, or a US routing (ABA checksum) and account number in USD. */
export function checkBankAccountNumber(input: BankAccountNumberInput): NumberCheck {
  const us = input.routing_number !== undefined || input.account_number !== undefined;
  if (input.iban !== undefined && us) return refuse('iban', 'give either iban or routing_number and account_number, not both');
  if (input.iban !== undefined) {
    const iban = electronicFormatIBAN(input.iban) ?? '';
    const check = validateIBAN(iban, { allowQRIBAN: false });
    if (!check.valid) {
      const problem = check.errorCodes.map((code) => IBAN_PROBLEMS[code]).find((text) => text !== undefined);
      return refuse('iban', problem ?? 'iban is not a valid IBAN');
    }
    if (iban.slice(0, 2) !== input.country) return refuse('country', `country is ${input.country} but the IBAN is of ${iban.slice(0, 2)}`);
    return { ok: true, number: { scheme: 'iban', iban } };
  }
  if (input.country !== 'US') {
    return us
      ? refuse('country', 'routing_number and account_number are for US accounts; an account in another country gives its iban')
      : refuse('iban', 'iban is required');
  }
  const routingNumber = input.routing_number ?? '';
  const accountNumber = input.account_number ?? '';
  if (!us) return refuse('routing_number', 'routing_number and account_number are required for a US account');
  if (!/^\d{9}$/.test(routingNumber)) return refuse('routing_number', 'routing_number must be 9 digits');
  if (!isRoutingPrefix(routingNumber) || !validAbaChecksum(routingNumber)) {
    return refuse('routing_number', 'routing_number is not a valid ABA routing number (its checksum or its first two digits)');
  }
  if (!/^\d{4,17}$/.test(accountNumber)) return refuse('account_number', 'account_number must be 4 to 17 digits');
  if (input.currency !== 'USD') return refuse('currency', `a US bank account receives USD, not ${input.currency}`);
  return { ok: true, number: { scheme: 'us_aba', routingNumber, accountNumber } };
}

/** The last four characters of the account number (of the IBAN for IBAN accounts): all the API shows of it. */
export function last4Of(number: BankAccountNumber): string {
  return (number.scheme === 'iban' ? number.iban : number.accountNumber).slice(-4);
}

/** The one text a number is sealed and fingerprinted as: `iban:DE89…` or `us_aba:110000000:000123456789`. */
export function canonicalNumber(number: BankAccountNumber): string {
  return number.scheme === 'iban' ? `iban:${number.iban}` : `us_aba:${number.routingNumber}:${number.accountNumber}`;
}

/** The inverse of `canonicalNumber`, for a number opened from its seal. */
export function parseCanonicalNumber(text: string): BankAccountNumber {
  const parts = text.split(':');
  const [scheme, first = '', second = ''] = parts;
  if (scheme === 'iban' && parts.length === 2 && first) return { scheme, iban: first };
  if (scheme === 'us_aba' && parts.length === 3 && first && second) return { scheme, routingNumber: first, accountNumber: second };
  throw new Error('not a canonical bank account number');
}

export interface BankAccountKeys {
  /** Keys AES-256-GCM for full numbers at rest. */
  sealKey: Buffer;
  /** Keys the fingerprint's HMAC. */
  fingerprintKey: Buffer;
}

/**
 * The bank account keys, derived with HKDF-SHA256 from the service's secret key (WEBHOOK_SECRET_KEY,
 * which the API and the worker both hold), each under an info string of its own, so that neither
 * key opens or matches what the other protects, nor what the webhook secrets' key seals.
 */
export function deriveBankAccountKeys(rootKey: Buffer): BankAccountKeys {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', rootKey, Buffer.alloc(0), info, 32));
  return {
    sealKey: derive('payment-custody bank account number v1'),
    fingerprintKey: derive('payment-custody bank account fingerprint v1'),
  };
}

/**
 * The `fingerprint`: the same for the same account number within one account and mode, different
 * across accounts and modes (a tenant cannot match another's recipients), and revealing nothing of
 * the number without the key: HMAC-SHA256, its first 12 bytes as base64url (16 characters).
 */
export function fingerprintOf(key: Buffer, scope: Scope, number: BankAccountNumber): string {
  return createHmac('sha256', key)
    .update(`${scope.accountId}\n${scope.livemode ? 'live' : 'test'}\n${canonicalNumber(number)}`, 'utf8')
    .digest()
    .subarray(0, 12)
    .toString('base64url');
}

/** Ready-made valid test numbers, by the simulated bank's story (docs/payouts.md lists them). */
export const TEST_BANK_ACCOUNTS = {
  paid: { iban: 'DE94370400440532010000', routing_number: '110000000', account_number: '000123450000' },
  no_account: { iban: 'DE67370400440532010001', routing_number: '110000000', account_number: '000123450001' },
  returned_account_closed: { iban: 'DE40370400440532010002', routing_number: '110000000', account_number: '000123450002' },
} as const;

/**
 * Which of a recipient's accounts (oldest first) is the default in `currency`: the current default
 * while it is payable, else the oldest payable one, else none. A new account in a currency with no
 * payable default becomes it; deleting, disabling or an error of the default hands it on (the
 * contract has no call to choose a default, and a payout should not wait on an account it cannot use).
 */
export function defaultBankAccount(
  accounts: readonly { id: string; currency: string; status: BankAccountStatus; defaultForCurrency: boolean }[],
  currency: string,
): string | null {
  const payable = accounts.filter((a) => a.currency === currency && isPayableBankAccount(a.status));
  const chosen = payable.find((a) => a.defaultForCurrency) ?? payable.at(0);
  return chosen ? chosen.id : null;
}
