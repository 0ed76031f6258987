import Router from '@koa/router';
import { createApiKey, listApiKeys, revokeApiKey, type ApiKeyRecord } from '../../db/accounts';
import type { AppDeps, AppState } from '../context';
import { ApiError, checkIdParam, notFound, parse } from '../errors';
import { CreateApiKeyRequest, NoQuery } from '../schemas';

const keyView = (k: ApiKeyRecord) => ({
  id: k.id,
  object: 'api_key' as const,
  mode: k.livemode ? 'live' : 'test',
  last4: k.last4,
  created_at: k.created_at.toISOString(),
});

/**
 * API keys of the caller's account, within the caller's own mode like everything else: a test
 * credential creates, lists and revokes test keys; a live one (or a bearer token with
 * X-Service-Mode: live) live keys.
 */
export function apiKeyRoutes({ db }: AppDeps) {
  const router = new Router<AppState>();
  router.param('id', checkIdParam('API key'));
  router.post('/api-keys', async (ctx) => {
    const { mode } = parse(CreateApiKeyRequest, ctx.state.body);
    const p = ctx.state.principal!;
    // A credential makes keys of its own mode only: a leaked test key must never mint a live one.
    if ((mode === 'live') !== p.livemode) {
      throw new ApiError(
        403,
        'forbidden',
        `a ${p.livemode ? 'live' : 'test'}-mode credential can only create ${p.livemode ? 'live' : 'test'} keys`,
      );
    }
    const { record, key } = await createApiKey(db, p.accountId, p.livemode);
    ctx.state.responseHoldsSecret = true;
    ctx.status = 201;
    ctx.body = { ...keyView(record), key };
  });
  router.get('/api-keys', async (ctx) => {
    parse(NoQuery, ctx.query, 'query');
    const p = ctx.state.principal!;
    ctx.body = { object: 'list', data: (await listApiKeys(db, p.accountId, p.livemode)).map(keyView) };
  });
  router.delete('/api-keys/:id', async (ctx) => {
    const p = ctx.state.principal!;
    if (!(await revokeApiKey(db, p.accountId, p.livemode, ctx.params.id))) throw notFound('API key');
    ctx.body = { id: ctx.params.id, deleted: true };
  });
  return router;
}
