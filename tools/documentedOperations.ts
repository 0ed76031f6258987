/** Every documented operation without a running service, for the OpenAPI writer and the tests that read the document. */
import type { Config } from '../src/platform/config';
import { apiRouters } from '../src/platform/http/app';
import { openRoutes } from '../src/platform/http/open.routes';
import { loginRateLimit } from '../src/platform/http/limits.middleware';
import type { Operation } from '../src/platform/http/registry';
import type { Services } from '../src/platform/services';

/** The routes are built over services that are never called: a route's definition does not touch them. */
export function documentedOperations(config: Pick<Config, 'PAYMENT_MAX_AMOUNT'>): Operation[] {
  const services = new Proxy({} as Services, { get: () => ({}) });
  return [
    ...openRoutes({ services, config: config as Config }, loginRateLimit()).operations,
    ...apiRouters({ services, config: config as Config }).flatMap((r) => r.operations),
  ];
}
