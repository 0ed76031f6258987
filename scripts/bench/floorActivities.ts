/**
 * (B3)'s one activity per transition: project the payment's new version onto its read-model row,
 * guarded by version as a projection must be (a late or repeated attempt never moves the row back),
 * then POST the signed event to the receiver as (B2) does. (B4) runs the same two steps as two
 * activities: `project`, then (B2)'s `postEvent` on the webhooks task queue.
 */
import { Pool } from 'pg';
import type { PaymentStatus } from '../../src/payments/paymentTypes.rules';
import type { EngineActivities } from './engineActivities';
import { withUser } from './plainPg';

/** (B3)'s answer to a step: the payment as the read model will hold it. */
export interface FloorPayment {
  id: string;
  status: PaymentStatus;
  version: number;
}

/** `table`: the run's read-model table (./floor.ts); unset when the run has no B3. */
export function createFloorActivities(engine: EngineActivities, databaseUrl?: string, table?: string) {
  let pool: Pool | undefined;
  const project = async (payment: FloorPayment): Promise<void> => {
    if (!databaseUrl || !table) throw new Error('BENCH_DATABASE_URL and BENCH_FLOOR_PAYMENTS are not set');
    // The service's knex pool has 10 connections; so has this worker's and the front's.
    pool ??= new Pool({ connectionString: withUser(databaseUrl), max: 10 });
    await pool.query(`UPDATE ${table} SET status = $2, version = $3, updated_at = now() WHERE id = $1 AND version < $3`, [
      payment.id,
      payment.status,
      payment.version,
    ]);
  };
  return {
    project,
    async projectAndPost(payment: FloorPayment, event: string): Promise<void> {
      await project(payment);
      await engine.postEvent(payment.id, event);
    },
  };
}

export type FloorActivities = ReturnType<typeof createFloorActivities>;
