/** The login's and the API keys' schemas (src/platform/http/open.routes.ts, account.ts). */
import { z } from 'zod';
import { ApiKeyViewSchema } from './apiKey.view';
import { component } from '../platform/http/components';
import * as S from '../platform/http/samples';
import { email, text, wholeListOf } from '../platform/http/common.schemas';

export const LoginRequest = component('LoginRequest', z.object({ email, password: text(1024).min(1) }).strict(), {
  email: 'demo@example.com',
  password: 'demo-password',
});

export const LoginResponse = component('LoginResponse', z.object({ token: z.string(), expires_at: z.string() }), S.login);

export const CreateApiKeyRequest = component('CreateApiKeyRequest', z.object({ mode: z.enum(['test', 'live']) }).strict(), {
  mode: 'test',
});

export const ApiKey = component('ApiKey', ApiKeyViewSchema);

export const ApiKeyCreated = component('ApiKeyCreated', ApiKey.extend({ key: z.string().describe('Shown once') }), S.apiKeyCreated);

/** Every key of the mode at once (a handful): `has_more` is always false. */
export const ApiKeyList = component('ApiKeyList', wholeListOf(ApiKey), S.list(S.apiKey));
