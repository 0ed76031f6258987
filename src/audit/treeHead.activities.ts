/** The custody trail's scheduled tree head (docs/audit.md). */
import { ApplicationFailure } from '@temporalio/activity';
import { auditSigningKey } from '../platform/config';
import { AuditLogInconsistent, latestHead, signTreeHead } from './trail.repository';
import { appendStandaloneEntryLeaves } from '../ledger/ledgerAccounts.repository';
import { AUDIT_LOG_INCONSISTENT } from '../platform/failures.rules';
import { signEd25519 } from './ed25519';
import type { ActivityResources } from '../platform/activityResources';

/**
 * How far before the previous head the leaves of the API's entries are looked for: an entry carries
 * its request's time and commits within the request, so an hour covers every one the previous run
 * could not see yet, and keeps each run to recent entries.
 */
const CATCH_UP_MARGIN_MS = 60 * 60 * 1000;

export function auditHeadActivities({ db, config, logger }: ActivityResources) {
  return {
    /**
     * Append the leaves of entries the API wrote (the workers are the trail's only writers), sequence
     * the leaves waiting for a position and sign the new head, never one the stored tree cannot prove
     * consistent with the previous head.
     */
    async signTreeHead(): Promise<{ treeSize: number; timestamp: string }> {
      const key = auditSigningKey(config);
      try {
        const previous = await latestHead(db);
        await appendStandaloneEntryLeaves(db, previous ? new Date(Date.parse(previous.timestamp) - CATCH_UP_MARGIN_MS) : null);
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
