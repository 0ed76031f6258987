/**
 * Idempotency-Key use cases: claim a key for a request, replay the first answer, record the
 * answer. Keys are scoped to the account and mode and live 24 hours.
 */
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import {
  SECRET_WITHHELD,
  claimIdempotencyKey,
  completeIdempotencyKey,
  failIdempotencyKey,
  purgeExpiredIdempotencyKeys,
} from './database/idempotencyKeys';
import type { Scope } from '../tenants/tenancy.rules';
import { IdempotencyConflict } from './useCaseErrors';

type Begun =
  /** The first answer, to send again. */
  | { kind: 'replay'; status: number; body: unknown }
  /** Run the request; `resourceId` names what it creates or sends, the same on every retry. */
  | { kind: 'run'; resourceId: string; retry: boolean };

const isWithheld = (body: unknown) =>
  typeof body === 'object' && body !== null && (body as Record<string, unknown>).secret_withheld === true;

export function idempotencyService({ db }: { db: Knex }) {
  return {
    /**
     * `reentrant`: the operation carries the key's resource id into Temporal (workflow id, update
     * id), which runs it at most once, so a request whose key is still "in progress" (its first
     * attempt died, or could not record its answer while PostgreSQL was down) may run again and
     * learn the operation's true outcome instead of a 409 about itself.
     */
    async begin(scope: Scope, key: string, requestHash: string, reentrant: boolean): Promise<Begun> {
      const claim = await claimIdempotencyKey(db, scope, key, requestHash, () => ulid());
      switch (claim.kind) {
        case 'conflict':
          throw new IdempotencyConflict(claim.message);
        case 'replay':
          if (isWithheld(claim.body)) {
            throw new IdempotencyConflict(
              'the first request with this Idempotency-Key created a secret, which is shown only once; it cannot be shown again (list the resource to see it without its secret, or send a new key to create another)',
            );
          }
          return claim;
        case 'in_progress':
          if (!reentrant) throw new IdempotencyConflict('a request with this Idempotency-Key is still in progress');
          return { kind: 'run', resourceId: claim.resourceId, retry: true };
        case 'claimed':
          return { kind: 'run', resourceId: claim.resourceId, retry: claim.retry };
      }
    },

    /** The answer to replay; one that holds a secret is never stored. */
    complete: (scope: Scope, key: string, status: number, body: unknown, holdsSecret: boolean) =>
      completeIdempotencyKey(db, scope, key, status, holdsSecret ? SECRET_WITHHELD : body),

    /** A failure on our side: the key stays retryable, with its resource id. */
    fail: (scope: Scope, key: string) => failIdempotencyKey(db, scope, key),

    purgeExpired: () => purgeExpiredIdempotencyKeys(db),
  };
}

export type IdempotencyService = ReturnType<typeof idempotencyService>;
