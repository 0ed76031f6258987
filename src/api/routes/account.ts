import Router from '@koa/router';
import type { AccountsService, ApiKeyRecord } from '../../services/accounts';
import type { AppState } from '../context';
import { checkIdParam, parse } from '../parse';
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
export function apiKeyRoutes(accounts: AccountsService) {
  const router = new Router<AppState>();
  router.param('id', checkIdParam('API key'));
  router.post('/api-keys', async (ctx) => {
    const { mode } = parse(CreateApiKeyRequest, ctx.state.body);
    const { record, key } = await accounts.createApiKey(ctx.state.principal!, mode);
    ctx.state.responseHoldsSecret = true;
    ctx.status = 201;
    ctx.body = { ...keyView(record), key };
  });
  router.get('/api-keys', async (ctx) => {
    parse(NoQuery, ctx.query, 'query');
    ctx.body = { object: 'list', data: (await accounts.listApiKeys(ctx.state.principal!)).map(keyView), has_more: false };
  });
  router.delete('/api-keys/:id', async (ctx) => {
    await accounts.revokeApiKey(ctx.state.principal!, ctx.params.id);
    ctx.body = { id: ctx.params.id, deleted: true };
  });
  return router;
}
