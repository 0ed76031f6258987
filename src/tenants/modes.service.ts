/**
 * A 404 that helps without telling (docs/security.md, "Test and live mode"): an id the caller's
 * account holds in the other mode is named as such, nothing of the object shown; another account's
 * object stays a bare 404.
 */
import type { Knex } from 'knex';
import type { Principal } from './tenancy.rules';
import { modeOfObject } from './modes.repository';
import { NotFound } from '../platform/useCaseErrors';

const modeName = (livemode: boolean) => (livemode ? 'live' : 'test');

export function modesService({ db }: { db: Knex }) {
  return {
    /**
     * The not-found `err` for a request about `ids`, said again when one of them is the account's in
     * the other mode: which id, and which key to use instead.
     */
    async explainNotFound(principal: Principal, err: NotFound, ids: string[]): Promise<NotFound> {
      for (const id of ids) {
        const livemode = await modeOfObject(db, principal.accountId, id);
        if (livemode === undefined || livemode === principal.livemode) continue;
        const other = modeName(livemode);
        return new NotFound(
          err.what,
          `${err.message} in ${modeName(principal.livemode)} mode: ${id} exists in ${other} mode; use a ${other} API key (or X-Service-Mode: ${other})`,
        );
      }
      return err;
    },
  };
}

export type ModesService = ReturnType<typeof modesService>;
