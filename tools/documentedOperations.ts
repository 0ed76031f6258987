/** Every documented operation without a running service, for the OpenAPI writer and the tests that read the document. */
import type { Config } from '../src/config';
import { apiRouters } from '../src/api/app';
import { openRoutes } from '../src/api/routes/open';
import { loginRateLimit } from '../src/api/middleware/limits';
import type { Operation } from '../src/api/registry';
import type { Services } from '../src/services';

/** The routes are built over services that are never called: a route's definition does not touch them. */
export function documentedOperations(config: Pick<Config, 'PAYMENT_MAX_AMOUNT'>): Operation[] {
  const services = new Proxy({} as Services, { get: () => ({}) });
  return [
    ...openRoutes({ services, config: config as Config }, loginRateLimit()).operations,
    ...apiRouters({ services, config: config as Config }).flatMap((r) => r.operations),
  ];
}
