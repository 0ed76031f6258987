/** A return's request and its answer (docs/bank.md, "Returns"), as the workflow carries them: ids only, never the debtor. */
export interface BankReturnInput {
  /** `rtn_…`: the return's id, the same on every retry. */
  returnId: string;
  creditId: string;
  /** The credit's owner: an account, or null for the operator's. */
  accountId: string | null;
  livemode: boolean;
}

/** What the request did (a workflow's result, ids only): the return made, or why nothing changed. */
export type BankReturnResult =
  | { outcome: 'returned'; returnId: string; status: string }
  | { outcome: 'not_found' }
  | { outcome: 'not_unapplied'; status: string }
  | { outcome: 'not_returnable'; why: string };
