/** Who owns a resource: an account, in one mode. Test and live data never mix. */
export interface Scope {
  accountId: string;
  livemode: boolean;
}

/** Who is calling, in which mode: set by authentication. */
export interface Principal extends Scope {
  /** API key id or user id: recorded as the actor of transitions. */
  actor: string;
  /** The credential rate limits count against. */
  credential: string;
}

export function scopeOf(p: Scope): Scope {
  return { accountId: p.accountId, livemode: p.livemode };
}
