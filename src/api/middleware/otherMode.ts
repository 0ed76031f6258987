/**
 * A route's 404 about an id of the caller's account in the other mode says so (its message only):
 * one rule for every route, driven by the path's ids (src/services/modes.ts).
 */
import type { Context, Next } from 'koa';
import { NotFound } from '../../services/errors';
import type { ModesService } from '../../services/modes';
import type { AppState } from '../context';

export function otherModeNotFound(modes: ModesService) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (err) {
      const principal = (ctx.state as AppState).principal;
      // The matched route's parameters, set on the context by the router before its handlers ran.
      const params = (ctx as { params?: Record<string, string> }).params ?? {};
      if (!(err instanceof NotFound) || !principal) throw err;
      throw await modes.explainNotFound(principal, err, Object.values(params));
    }
  };
}
