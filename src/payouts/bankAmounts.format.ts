/**
 * Amounts between the ledger's integer minor units and ISO 20022's decimal text (`10.50`), exactly:
 * digit by digit through the currency's ISO 4217 exponent, never through a floating-point number.
 */
import { formatMinor } from '../ledger/amountText.rules';
import { isCurrency, minorUnits } from '../ledger/money.rules';
import { BankFileError } from './bankFileErrors.format';

/** ISO's ActiveOrHistoricCurrencyAndAmount: at most 18 digits, 5 of them after the point. */
const ISO_AMOUNT = /^(\d{1,18})(?:\.(\d{1,5}))?$/;

/** An amount's decimal text for ISO 20022, e.g. 1050n EUR → "10.50", 1000n JPY → "1000". */
export function isoAmountText(minor: bigint, currency: string): string {
  if (minor <= 0n) throw new RangeError(`an amount in a credit transfer is positive, not ${minor}`);
  const text = formatMinor(minor, minorUnits(currency));
  if (text.replace('.', '').length > 18) throw new RangeError(`${text} ${currency} has more than the 18 digits ISO 20022 allows`);
  return text;
}

/** An ISO amount's text in the currency's minor units; a digit the currency cannot hold (10.505 EUR) is refused, trailing zeros are not. */
export function minorOfIsoAmount(text: string, currency: string, path: string): bigint {
  const match = ISO_AMOUNT.exec(text.trim());
  if (!match) throw new BankFileError('invalid_message', `"${text}" is not an ISO 20022 amount`, path);
  if (!isCurrency(currency)) throw new BankFileError('invalid_message', `"${currency}" is not an ISO 4217 currency`, path);
  const digits = minorUnits(currency);
  const [, whole = '', fraction = ''] = match;
  if (fraction.slice(digits).replace(/0/g, '') !== '') {
    throw new BankFileError('invalid_message', `${text} ${currency} has more fractional digits than ${currency}'s ${digits}`, path);
  }
  return BigInt(whole + fraction.slice(0, digits).padEnd(digits, '0'));
}

/** The exact sum of decimal texts (a control sum over amounts of any currencies, as ISO defines CtrlSum). */
export function sumDecimalTexts(texts: readonly string[]): string {
  const scale = Math.max(0, ...texts.map((t) => t.split('.')[1]?.length ?? 0));
  const total = texts.reduce((sum, t) => {
    const [whole = '', fraction = ''] = t.split('.');
    return sum + BigInt(whole + fraction.padEnd(scale, '0'));
  }, 0n);
  return formatMinor(total, scale);
}
