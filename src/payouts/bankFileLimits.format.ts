/**
 * The limits a bank file is held to before it is parsed (docs/bank.md, "Limits"): its size, how
 * deep its elements nest, how many elements and attributes it has, and names of the shape ISO 20022
 * gives them (letters and digits, an optional prefix). One linear pass over the text, no tree built:
 * a hostile file (an element named `__proto__`, ten thousand levels deep, 880k attributes) is
 * refused in milliseconds, before the parser sees it.
 */
import { BankFileError } from './bankFileErrors.format';

export interface BankFileLimits {
  maxBytes: number;
  maxElements: number;
  maxEntries: number;
}

/** ISO 20022 messages nest about fifteen levels; twice that is room for any of them. */
export const MAX_DEPTH = 32;
/** An ISO 20022 element carries at most a currency or a namespace or two. */
export const MAX_ATTRIBUTES_PER_ELEMENT = 8;

/** An element or attribute name as ISO 20022 writes them: `Ntry`, `Ccy`, `xmlns`, `xmlns:ns2`, `ns2:Ntry`. */
const NAME = /^(?:[A-Za-z][A-Za-z0-9_.-]{0,63}:)?[A-Za-z][A-Za-z0-9]{0,63}$/;

const over = (message: string) => new BankFileError('over_limits', message);

/** Refuse a file beyond the limits; silent when within them (well-formedness is the parser's to judge). */
export function checkXmlLimits(xml: string, limits: Pick<BankFileLimits, 'maxElements'>): void {
  let depth = 0;
  let elements = 0;
  let at = xml.indexOf('<');
  while (at !== -1) {
    const next = xml[at + 1];
    if (next === '?') {
      at = xml.indexOf('?>', at + 2);
      if (at === -1) return;
    } else if (xml.startsWith('<!--', at)) {
      at = xml.indexOf('-->', at + 4);
      if (at === -1) return;
    } else if (xml.startsWith('<![CDATA[', at)) {
      at = xml.indexOf(']]>', at + 9);
      if (at === -1) return;
    } else if (next === '!') {
      throw new BankFileError('unsupported_message', 'the file declares a DOCTYPE, which no ISO 20022 message has');
    } else if (next === '/') {
      depth -= 1;
    } else {
      const end = scanTag(xml, at);
      elements += 1;
      if (elements > limits.maxElements) throw over(`the file has more than ${limits.maxElements} elements (BANK_FILE_MAX_ELEMENTS)`);
      if (xml[end - 1] !== '/') {
        depth += 1;
        if (depth > MAX_DEPTH) throw over(`elements nest deeper than ${MAX_DEPTH} levels`);
      }
      at = end;
    }
    at = xml.indexOf('<', at + 1);
  }
}

/** A start tag from `<` to its `>`: its name and attributes' names checked, their count bounded; the index of its `>`. */
function scanTag(xml: string, start: number): number {
  let i = start + 1;
  const nameEnd = (from: number) => {
    let j = from;
    while (j < xml.length && !/[\s/>=]/.test(xml[j])) j += 1;
    return j;
  };
  let end = nameEnd(i);
  const name = xml.slice(i, end);
  if (!NAME.test(name)) throw over(`"${name.slice(0, 64)}" is not an element name of an ISO 20022 message`);
  let attributes = 0;
  i = end;
  for (;;) {
    while (i < xml.length && /\s/.test(xml[i])) i += 1;
    if (i >= xml.length) return xml.length;
    if (xml[i] === '>') return i;
    if (xml[i] === '/' && xml[i + 1] === '>') return i + 1;
    end = nameEnd(i);
    const attribute = xml.slice(i, end);
    if (!NAME.test(attribute)) throw over(`"${attribute.slice(0, 64)}" is not an attribute name of an ISO 20022 message`);
    attributes += 1;
    if (attributes > MAX_ATTRIBUTES_PER_ELEMENT) throw over(`an element has more than ${MAX_ATTRIBUTES_PER_ELEMENT} attributes`);
    i = end;
    while (i < xml.length && /\s/.test(xml[i])) i += 1;
    if (xml[i] !== '=') return i; // Not well-formed: the parser says so.
    i += 1;
    while (i < xml.length && /\s/.test(xml[i])) i += 1;
    const quote = xml[i];
    if (quote !== '"' && quote !== "'") return i;
    const close = xml.indexOf(quote, i + 1);
    if (close === -1) return xml.length;
    i = close + 1;
  }
}
