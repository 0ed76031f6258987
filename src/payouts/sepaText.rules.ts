/**
 * The SEPA character set (EPC's Credit Transfer Rulebook, the basic Latin set every bank in the
 * scheme must take): letters a–z and A–Z, digits, and `/ - ? : ( ) . , ' +` and space. Names and
 * references are checked against it at input (docs/bank.md, "What the bank receives"), so that one
 * tenant's text can never make a shared pain.001 file one the bank refuses.
 */

/** Every character of the set, and nothing else. */
export const SEPA_TEXT = /^[A-Za-z0-9/\-?:().,'+ ]*$/;

/** EPC's limit for a creditor's or debtor's name (the ISO 20022 element allows 140). */
export const SEPA_NAME_MAX = 70;

/** Whether `text` is within the set. */
export const isSepaText = (text: string): boolean => SEPA_TEXT.test(text);

/** The first character outside the set, for a message naming it (`U+FFFF`), or undefined. */
export function firstOutsideSepa(text: string): string | undefined {
  for (const char of text) {
    if (!SEPA_TEXT.test(char)) return `"${char}" (U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`;
  }
  return undefined;
}
