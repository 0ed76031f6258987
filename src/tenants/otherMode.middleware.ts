/**
 * A route's 404 about an id of the caller's account in the other mode says so (its message only):
 * one rule for every route, driven by the path's ids (src/tenants/modes.service.ts).
 */
import type { Context, Next } from 'koa';
import { NotFound } from '../platform/useCaseErrors';
import type { ModesService } from './modes.service';
import type { AppState } from '../platform/http/context';
import { idPattern } from '../platform/http/parse';

const ID = idPattern();

export function otherModeNotFound(modes: ModesService) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (err) {
      const principal = (ctx.state as AppState).principal;
      // The matched route's parameters, set on the context by the router before its handlers ran.
      const params = (ctx as { params?: Record<string, string> }).params ?? {};
      if (!(err instanceof NotFound) || !principal) throw err;
      // Only ids of our shape are looked up: anything else cannot exist (src/platform/http/parse.ts). The hint
      // is a courtesy: should its lookup fail, the 404 stands as it was.
      const ids = Object.values(params).filter((id) => ID.test(id));
      throw await modes.explainNotFound(principal, err, ids).catch(() => err);
    }
  };
}
