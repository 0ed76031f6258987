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
 * Grant `worker` rows of every table, and `api` the same but writing the trail's tables. Neither may
 * TRUNCATE, own a table or take TRIGGER (so neither can switch the trail's append-only triggers off).
 * Idempotent: run after every `npm run migrate` with DATABASE_API_ROLE and DATABASE_WORKER_ROLE set.
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
      await tx.raw(`REVOKE INSERT, UPDATE, DELETE ON ${TRAIL_TABLES.map(() => '??').join(', ')} FROM ??`, [...TRAIL_TABLES, roles.api]);
    }
  });
}
