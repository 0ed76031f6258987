/** The API key routes (create, list, revoke): parse, call one use case, respond. */
import { apiKeyView } from './apiKey.view';
import type { AccountsService } from './tenants.service';
import { Routes } from '../platform/http/registry';
import { ApiKeyCreated, ApiKeyList, CreateApiKeyRequest, DeletedResponse } from '../platform/http/schemas';
import { wholeList } from '../platform/http/lists';

/**
 * API keys of the caller's account, within the caller's own mode like everything else: a test
 * credential creates, lists and revokes test keys; a live one (or a bearer token with
 * X-Service-Mode: live) live keys.
 */
export function apiKeyRoutes(accounts: AccountsService) {
  const routes = new Routes({ prefix: '/api/v1', auth: true });
  routes.param('id', 'API key', 'The API key id (key_…), from POST or GET /api/v1/api-keys');
  const tag = 'API keys';
  routes.add(
    {
      method: 'post',
      path: '/api-keys',
      tag,
      summary: "Create an API key of the caller's mode (shown once)",
      body: CreateApiKeyRequest,
      responses: { 201: { description: 'The key', schema: ApiKeyCreated } },
      errors: ['forbidden', 'api_key_limit_reached'],
    },
    async (ctx, { body: { mode } }) => {
      const { record, key } = await accounts.createApiKey(ctx.state.principal!, mode);
      ctx.state.responseHoldsSecret = true;
      ctx.status = 201;
      ctx.body = { ...apiKeyView(record), key };
    },
  );
  routes.add(
    {
      method: 'get',
      path: '/api-keys',
      tag,
      summary: "List the mode's API keys",
      responses: { 200: { description: 'Keys (last four characters only)', schema: ApiKeyList } },
    },
    async (ctx) => {
      ctx.body = wholeList((await accounts.listApiKeys(ctx.state.principal!)).map(apiKeyView));
    },
  );
  routes.add(
    {
      method: 'delete',
      path: '/api-keys/:id',
      tag,
      summary: 'Revoke an API key',
      responses: { 200: { description: 'Revoked', schema: DeletedResponse } },
    },
    async (ctx) => {
      await accounts.revokeApiKey(ctx.state.principal!, ctx.params.id);
      ctx.body = { id: ctx.params.id, deleted: true };
    },
  );
  return routes;
}
