/**
 * The custody trail's use cases: the public key, the latest signed tree head, consistency proofs,
 * a payment's leaves with their inclusion proofs, and the Temporal Schedule that signs heads.
 */
import { type Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { KeyObject } from 'node:crypto';
import type { Knex } from 'knex';
import type { Config } from '../platform/config';
import { type RecordKind, RecordKindKey } from '../platform/searchAttributes.rules';
import type { Scope } from '../tenants/tenancy.rules';
import {
  consistencyProof,
  inclusionProofs,
  latestHead,
  paymentLeaves,
  publishedPublicKey,
  publishPublicKey,
  type StoredHead,
} from './trail.repository';
import { findPayment } from '../payments/payments.repository';
import { rawPublicKey } from './ed25519';
import { InvalidInput, NotFound } from '../platform/useCaseErrors';

/** One schedule per task queue: each test stack (and each deployment's queue) has its own. */
export const auditScheduleId = (taskQueue: string) => `audit-tree-head-${taskQueue}`;

interface TreeHeadView {
  tree_size: number;
  root_hash: string;
  timestamp: string;
  signature: string;
}

const headView = (h: StoredHead): TreeHeadView => ({
  tree_size: h.treeSize,
  root_hash: h.rootHash.toString('base64'),
  timestamp: h.timestamp,
  signature: h.signature.toString('base64'),
});

const b64 = (hashes: Buffer[]) => hashes.map((h) => h.toString('base64'));

export function auditService({ db, temporal, config }: { db: Knex; temporal: Client; config: Config }) {
  const signedHead = async () => {
    const head = await latestHead(db);
    // Only before the first worker's schedule has run once.
    if (!head) throw new NotFound('signed tree head yet');
    return head;
  };
  return {
    /** The key workers published: the API process never holds the signing key (docs/security.md). */
    async publicKey() {
      const key = await publishedPublicKey(db);
      // Only before any worker with a signing key has started.
      if (!key) throw new NotFound('audit public key yet (no worker has published one)');
      return { algorithm: 'Ed25519' as const, public_key: key.toString('base64') };
    },

    /** A worker's, at start: the public half of the key its schedule signs with. */
    publishKey: (signingKey: KeyObject) => publishPublicKey(db, rawPublicKey(signingKey)),

    async treeHead(): Promise<TreeHeadView> {
      return headView(await signedHead());
    },

    /** RFC 9162 §2.1.4 between two sizes up to the latest signed head's. */
    async consistency(from: number, to: number) {
      const head = await signedHead();
      if (to > head.treeSize) {
        throw new InvalidInput([{ field: 'to', message: `must be at most ${head.treeSize}, the size of the latest signed tree head` }]);
      }
      if (from > to) throw new InvalidInput([{ field: 'from', message: `must be at most to (${to})` }]);
      return { from, to, proof: b64(await consistencyProof(db, from, to)) };
    },

    /** The payment's leaves in the latest signed head, each with its inclusion proof (owner and mode only). */
    async paymentProof(scope: Scope, paymentId: string) {
      if (!(await findPayment(db, scope, paymentId))) throw new NotFound('payment');
      const head = await signedHead();
      const leaves = await paymentLeaves(db, scope, paymentId, head.treeSize);
      const proofs = await inclusionProofs(
        db,
        leaves.map((l) => l.leafIndex),
        head.treeSize,
      );
      return {
        tree_head: headView(head),
        leaves: leaves.map((l, i) => ({ leaf_index: l.leafIndex, leaf: l.leaf, audit_path: b64(proofs[i]) })),
      };
    },

    /**
     * Create the signing schedule for this task queue, or bring an existing one to the configured
     * interval: idempotent, so every worker may call it at start. The first head is signed at once.
     */
    async ensureSchedule(taskQueue: string): Promise<string> {
      const scheduleId = auditScheduleId(taskQueue);
      const spec = { intervals: [{ every: config.AUDIT_HEAD_INTERVAL }] };
      const action = {
        type: 'startWorkflow' as const,
        workflowType: 'auditTreeHeadWorkflow',
        taskQueue,
        workflowId: scheduleId,
        workflowExecutionTimeout: '10 minutes' as const,
        // Kept out of the operators' payments list (docs/operations.md).
        typedSearchAttributes: [{ key: RecordKindKey, value: 'check' satisfies RecordKind }],
      };
      try {
        await temporal.schedule.create({
          scheduleId,
          spec,
          action,
          policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
          state: { triggerImmediately: true, note: 'Signs the custody trail tree head (docs/audit.md)' },
        });
      } catch (err) {
        if (!(err instanceof ScheduleAlreadyRunning)) throw err;
        const handle = temporal.schedule.getHandle(scheduleId);
        const current = await handle.describe();
        const every = current.spec.intervals?.[0]?.every;
        if (every !== config.AUDIT_HEAD_INTERVAL || (current.spec.intervals?.length ?? 0) !== 1) {
          await handle.update((previous) => ({ ...previous, spec }));
        }
      }
      return scheduleId;
    },
  };
}

export type AuditService = ReturnType<typeof auditService>;
