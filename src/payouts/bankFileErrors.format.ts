/**
 * The refusals of a bank file (docs/payouts.md, "Live mode"): a body that is not XML, XML of a
 * message the service does not read, a message missing what its definition requires, or a file
 * beyond the limits of docs/bank.md ("Limits"). Typed by meaning, so that the inbox writes each as
 * the reason of a rejected file.
 */

export type BankFileRefusal = 'not_xml' | 'unsupported_message' | 'invalid_message' | 'too_large' | 'over_limits';

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
