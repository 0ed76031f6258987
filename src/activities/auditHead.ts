/** The custody trail's scheduled tree head (docs/audit.md). */
import { ApplicationFailure } from '@temporalio/activity';
import { auditSigningKey } from '../config';
import { AuditLogInconsistent, signTreeHead } from '../db/audit';
import { AUDIT_LOG_INCONSISTENT } from '../domain/failures';
import { signEd25519 } from '../lib/ed25519';
import type { ActivityResources } from './resources';

export function auditHeadActivities({ db, config, logger }: ActivityResources) {
  return {
    /**
     * Sequence the leaves waiting for a position and sign the new head, never one the stored tree
     * cannot prove consistent with the previous head.
     */
    async signTreeHead(): Promise<{ treeSize: number; timestamp: string }> {
      const key = auditSigningKey(config);
      try {
        const head = await signTreeHead(
          db,
          (message) => signEd25519(key, message),
          () => new Date(),
        );
        logger.info({ tree_size: head.treeSize, root_hash: head.rootHash.toString('base64') }, 'audit tree head signed');
        return { treeSize: head.treeSize, timestamp: head.timestamp };
      } catch (err) {
        if (err instanceof AuditLogInconsistent) {
          logger.error({ err }, 'audit log inconsistent with its last signed head; no head signed (run npm run audit:verify)');
          throw ApplicationFailure.nonRetryable(err.message, AUDIT_LOG_INCONSISTENT);
        }
        throw err;
      }
    },
  };
}
