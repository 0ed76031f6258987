/** Readiness: can this process reach PostgreSQL and Temporal right now? Details go to the log. */
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Logger } from './lib/logger';
import { withinDeadline } from './lib/temporalDeadline';

export type Check = 'ok' | 'unavailable';

export function healthService({ db, temporal, logger }: { db: Knex; temporal: Client; logger: Logger }) {
  const down = (what: string, requestId: string) => (err: Error) => {
    logger.warn({ request_id: requestId, err: err.message }, `readiness: ${what} unavailable`);
    return 'unavailable' as const;
  };
  return {
    async readiness(requestId: string): Promise<{ postgres: Check; temporal: Check }> {
      const [postgres, temporalCheck] = await Promise.all([
        db.raw('select 1').then(() => 'ok' as const, down('postgres', requestId)),
        withinDeadline(temporal, () => temporal.connection.workflowService.getSystemInfo({}), Date.now() + 2000).then(
          () => 'ok' as const,
          down('temporal', requestId),
        ),
      ]);
      return { postgres, temporal: temporalCheck };
    },
  };
}
