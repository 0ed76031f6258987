/**
 * The refusals of a bank file (docs/payouts.md, "Live mode"): a body that is not XML, XML of a
 * message the service does not read, or a message missing what its definition requires. Typed by
 * meaning so the use case maps each to a 400 naming the problem.
 */

export type BankFileRefusal = 'not_xml' | 'unsupported_message' | 'invalid_message';

export class BankFileError extends Error {
  constructor(
    readonly reason: BankFileRefusal,
    message: string,
    /** Where in the message, as element names from the root (`BkToCstmrStmt/Stmt[0]/Ntry[2]/Amt`), when it is one element's fault. */
    readonly path?: string,
  ) {
    super(path ? `${message} (at ${path})` : message);
    this.name = 'BankFileError';
  }
}
