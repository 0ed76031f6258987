/**
 * The recipients' use cases (docs/concepts.md, "Recipients"): create, read, list, change, and the
 * verification the platform reports; every change is a `recipient.updated` event whose deliveries are
 * recorded with it and then started on the one road (docs/webhooks.md).
 */
import { type Client, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import type { Config } from '../platform/config';
import { ORIGINAL_SERIES } from '../webhooks/deliveryAttempt.rules';
import { NO_REQUIREMENTS, type RecipientState, type Requirements, type VerificationStatus } from './recipients.rules';
import type { Scope } from '../tenants/tenancy.rules';
import {
  type RecipientFilter,
  changeRecipient,
  findRecipient,
  holdsMoney,
  openPaymentNames,
  openReturnWindow,
  redactRecipient,
  insertRecipient,
  listRecipients,
  unattemptedDeliveries,
} from './recipients.repository';
import { recipientBalances } from '../ledger/ledgerAccounts.repository';
import { recipientBalanceView } from './recipient.view';
import { deliveryRetry } from '../webhooks/retrySchedule';
import { deliveries } from '../webhooks/deliveries.service';
import { recipientFundsWorkflow } from '../platform/workflows.workflow';
import { withinDeadline } from '../platform/lib/temporalDeadline';
import { NotFound, RecipientErased, RecipientInUse, pageOrRefuse } from '../platform/useCaseErrors';
import { PAYOUT_RETURN_WINDOW_MS } from '../payouts/payout.rules';
import type { Call } from '../payments/paymentRun.service';

export interface NewRecipient {
  email: string;
  country: string;
  type?: RecipientState['type'];
  name?: string | null;
  metadata?: Record<string, string>;
}

export interface RecipientChange {
  email?: string;
  name?: string | null;
  metadata?: Record<string, string>;
}

export interface VerificationReport {
  status: VerificationStatus;
  requirements?: Partial<Requirements>;
  disabledReason?: string | null;
}

interface RecipientsDeps {
  db: Knex;
  temporal: Client;
  config: Config;
}

/** An erased recipient takes no more writes (docs/concepts.md, "Recipients"): a 409 naming when it was erased. */
export function notErased(r: RecipientState, field?: string): RecipientState {
  if (r.redactedAt) throw new RecipientErased(r.id, r.redactedAt, field);
  return r;
}

export function recipientsService({ db, temporal, config }: RecipientsDeps) {
  const { deliver } = deliveries({ db, temporal, config });

  /**
   * Start the workflow of every delivery of the recipient's events not attempted yet, on the one
   * way in (docs/webhooks.md, "One road"): those this change recorded, and any an earlier change
   * recorded but could not start (a retry starts them; one whose workflow ran is left as it is).
   */
  async function startDeliveries(scope: Scope, recipientId: string): Promise<void> {
    for (const deliveryId of await unattemptedDeliveries(db, recipientId)) {
      const input = { deliveryId, series: ORIGINAL_SERIES, retry: deliveryRetry(config), base: 0 };
      await deliver({ scope, input, summary: `recipient.updated of ${recipientId}`, once: true }, { series: ORIGINAL_SERIES, logged: 0 });
    }
  }

  /**
   * Payouts enabled and money still pending (just enabled, or an earlier answer lost before its move):
   * a worker moves it to available, one entry per currency (in live mode, one per release of a payment
   * whose funding is booked, the rest staying pending: docs/money.md), since only the workers
   * write the ledger (docs/architecture.md, "One writer per aggregate"). Awaited, so the balances read
   * after the answer show it.
   */
  async function makeAvailable(r: RecipientState): Promise<void> {
    if (!r.payoutsEnabled) return;
    const pending = (await recipientBalances(db, r.id)).some((row) => row.balance === 'pending' && row.amount > 0n);
    if (!pending) return;
    await withinDeadline(temporal, () =>
      temporal.workflow.execute(recipientFundsWorkflow, {
        workflowId: `recipient-funds-${r.id}-${r.version}`,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        // A retried request joins the run under way, or runs again once it closed (its entries' keys write nothing twice).
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        args: [{ recipientId: r.id, version: r.version }],
      }),
    );
  }

  async function load(scope: Scope, id: string): Promise<RecipientState> {
    const r = await findRecipient(db, scope, id);
    if (!r) throw new NotFound('recipient');
    return r;
  }

  return {
    async create(call: Call, input: NewRecipient): Promise<RecipientState> {
      const now = new Date().toISOString();
      const recipient: RecipientState = {
        id: `rcp_${call.resourceId ?? ulid()}`,
        accountId: call.principal.accountId,
        livemode: call.principal.livemode,
        email: input.email.toLowerCase(),
        name: input.name ?? null,
        country: input.country,
        type: input.type ?? 'individual',
        metadata: input.metadata ?? {},
        verification: { status: 'unverified', requirements: NO_REQUIREMENTS, disabledReason: null },
        payoutsEnabled: false,
        version: 1,
        createdAt: now,
        updatedAt: now,
      };
      await insertRecipient(db, recipient);
      return load({ accountId: recipient.accountId, livemode: recipient.livemode }, recipient.id);
    },

    get: load,

    async list(scope: Scope, filter: RecipientFilter) {
      const page = pageOrRefuse(await listRecipients(db, scope, filter), 'not a recipient of this account and mode');
      return { data: page.rows, hasMore: page.hasMore };
    },

    async update(scope: Scope, id: string, input: RecipientChange): Promise<RecipientState> {
      const r = await changeRecipient(db, scope, id, (before) => ({
        ...notErased(before),
        ...(input.email === undefined ? {} : { email: input.email.toLowerCase() }),
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.metadata === undefined ? {} : { metadata: input.metadata }),
      }));
      if (!r) throw new NotFound('recipient');
      await startDeliveries(scope, id);
      return r;
    },

    /** Its balances per currency, as kept or (`asOf`) as they stood then. */
    async balance(scope: Scope, id: string, asOf?: Date) {
      await load(scope, id);
      return recipientBalanceView(id, await recipientBalances(db, id, asOf));
    },

    /**
     * Erase its e-mail, name and metadata everywhere (docs/operations.md), once nothing is pending,
     * available or in transit for it, no paid payout of its is inside its return window (a return
     * would owe it money again: docs/payouts.md, "Returns and erasure") and no open payment names it
     * (else 409); id, country and amounts stay.
     */
    async redact(scope: Scope, id: string): Promise<RecipientState> {
      const r = await redactRecipient(db, scope, id, async (tx) => {
        if (await holdsMoney(tx, id)) throw new RecipientInUse(id, 'balance');
        const window = await openReturnWindow(tx, id, PAYOUT_RETURN_WINDOW_MS);
        if (window) throw new RecipientInUse(id, 'return_window', window);
        if (await openPaymentNames(tx, scope, id)) throw new RecipientInUse(id, 'open_payment');
      });
      if (!r) throw new NotFound('recipient');
      return r;
    },

    /** The platform's report of the verification (the service examines no documents). */
    async verify(scope: Scope, id: string, report: VerificationReport): Promise<RecipientState> {
      const r = await changeRecipient(db, scope, id, (before) => ({
        ...notErased(before),
        verification: {
          status: report.status,
          requirements: { ...NO_REQUIREMENTS, ...report.requirements },
          disabledReason: report.disabledReason ?? null,
        },
      }));
      if (!r) throw new NotFound('recipient');
      await makeAvailable(r);
      await startDeliveries(scope, id);
      return r;
    },
  };
}

export type RecipientsService = ReturnType<typeof recipientsService>;
