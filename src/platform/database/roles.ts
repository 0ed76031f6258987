/**
 * The compose topology's database roles (docs/security.md, "Database roles"), granted by the migrate
 * step after every migration run, as the tables' owner: it is the one step that runs after the tables
 * exist, on every deploy, so a table a later migration adds is granted in the same run. Default
 * privileges could not do it: they cannot leave out the trail's tables.
 */
import type { Knex } from 'knex';

/**
 * The custody trail's tables (docs/audit.md): the leaves, the tree's nodes, the signed heads and the
 * published public keys. Only the workers write them; the API reads them to serve proofs and the key.
 */
export const TRAIL_TABLES = ['audit_leaves', 'audit_nodes', 'audit_tree_heads', 'audit_signing_keys'] as const;

/**
 * The money the API reads and only the workers write (docs/architecture.md, "One writer per
 * aggregate"): a payment's row is written by its workflow's publication, a payout's row and its
 * entries by its workflows' activities, a recipient's `make_available` by a worker's step, a return
 * (`bank_returns`) by its request's workflow and the payout batch; an action answers once that is
 * committed (docs/security.md, "Database roles").
 */
export const WORKER_WRITTEN_TABLES = ['payments', 'ledger_entries', 'ledger_postings', 'ledger_account_balances', 'bank_returns'] as const;

/**
 * The personal columns of `payments` an erasure overwrites (`POST /payments/:id/redact`, an API
 * request: src/payments/personalData.repository.ts). No amount, status or version among them.
 */
export const ERASABLE_PAYMENT_COLUMNS = ['payer_email', 'recipient_email', 'description', 'metadata', 'milestone_personal'] as const;

/**
 * Grant `worker` rows of every table, and `api` the same but writing neither the trail's tables nor
 * the money the workers write (`payments` but its personal columns). Neither may TRUNCATE, own a
 * table or take TRIGGER (so neither can switch the trail's append-only triggers off). Idempotent:
 * run after every `npm run migrate` with DATABASE_API_ROLE and DATABASE_WORKER_ROLE set.
 */
export async function grantRoles(db: Knex, roles: { api?: string; worker?: string }): Promise<void> {
  await db.transaction(async (tx) => {
    for (const role of [roles.api, roles.worker]) {
      if (!role) continue;
      await tx.raw('GRANT USAGE ON SCHEMA public TO ??', [role]);
      await tx.raw('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ??', [role]);
      await tx.raw('GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ??', [role]);
    }
    if (roles.api) {
      const readOnly = [...TRAIL_TABLES, ...WORKER_WRITTEN_TABLES];
      // Revoking a table's UPDATE revokes its columns' too: the erasure's columns are granted after.
      await tx.raw(`REVOKE INSERT, UPDATE, DELETE ON ${readOnly.map(() => '??').join(', ')} FROM ??`, [...readOnly, roles.api]);
      await tx.raw(`GRANT UPDATE (${ERASABLE_PAYMENT_COLUMNS.map(() => '??').join(', ')}) ON payments TO ??`, [
        ...ERASABLE_PAYMENT_COLUMNS,
        roles.api,
      ]);
    }
  });
}
