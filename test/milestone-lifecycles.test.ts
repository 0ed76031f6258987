/**
 * Random staged payments (docs/concepts.md, "Deals paid in stages"; docs/money.md) through the real
 * API, Temporal dev server and PostgreSQL: random milestones, random payment and milestone actions,
 * test-clock moves that fire auto-releases. A model written from the docs (not the service's rules)
 * says which requests are allowed and what each does; after every step the payment must match it
 * and keep every minor unit accounted for, per milestone and in all.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatMajor } from '../src/ledger/money.rules';
import { eventually, useStack, validPayment } from './helpers/stack';

const stack = useStack();

type Status = 'pending_deposit' | 'in_custody' | 'pending_release' | 'released' | 'refunded' | 'cancelled' | 'disputed';
type Action = 'deposit' | 'approve' | 'release' | 'dispute' | 'refund' | 'resolve';
type LedgerAccount = 'payer_deposits' | 'custody' | 'payer_refunds' | 'recipient_payable' | 'platform_fees';

const TERMINAL: readonly Status[] = ['released', 'refunded', 'cancelled'];
/**
 * The statuses each action may start from (docs/concepts.md), for a milestone; the payment's own
 * action is allowed while some milestone's status allows it, and acts on each such milestone.
 */
const FROM: Record<Action, readonly Status[]> = {
  deposit: ['pending_deposit'],
  approve: ['in_custody'],
  release: ['pending_release'],
  dispute: ['in_custody', 'pending_release'],
  refund: ['in_custody', 'pending_release', 'disputed'],
  resolve: ['disputed'],
};
/** Two days: test-clock moves before the deposit can pass it. */
const DEPOSIT_DEADLINE_SECONDS = 172_800;

/** One expected ledger entry: its type and its non-zero postings, minor units. */
interface Entry {
  type: 'deposit' | 'refund' | 'release' | 'split';
  postings: Partial<Record<LedgerAccount, bigint>>;
}

interface ModelMilestone {
  amount: bigint;
  status: Status;
  held: bigint;
  released: bigint;
  refunded: bigint;
  fee: bigint;
  autoRelease: number | null;
  /** When its auto-release fires, in seconds the test clock moved since creation. */
  dueAt: number | null;
  /** The step that armed it: of two due at once on the test clock, the one armed first was due first in real time. */
  armedAt: number;
  entries: Entry[];
}

type Expected = { code: 200 } | { code: 409; message: string } | { code: 400; field: 'amount' | 'refund_amount' };

/**
 * The payment as docs/concepts.md and docs/money.md describe it, in minor units. `request` answers as
 * the API should and applies an allowed request; `advance` moves the test clock.
 */
class Model {
  offset = 0;
  /** Counts requests and clock moves, for `armedAt`. */
  tick = 0;
  readonly ms: ModelMilestone[];

  constructor(
    readonly amount: bigint,
    readonly platformFee: bigint,
    parts: { amount: bigint; autoRelease: number | null }[],
  ) {
    this.ms = parts.map((p) => ({
      amount: p.amount,
      status: 'pending_deposit',
      held: 0n,
      released: 0n,
      refunded: 0n,
      fee: 0n,
      autoRelease: p.autoRelease,
      dueAt: null,
      armedAt: 0,
      entries: [],
    }));
  }

  /** The payment's status from its milestones': the first rule of docs/concepts.md that holds. */
  status(): Status {
    return statusRule(this.ms.map((m) => ({ status: m.status, held: m.held, released: m.released })));
  }

  held = () => this.ms.reduce((s, m) => s + m.held, 0n);
  releasedTotal = () => this.ms.reduce((s, m) => s + m.released, 0n);

  /** Release what `m` holds after `refund` of it goes back to the payer; the fee keeps pro rata to everything released. */
  private release(m: ModelMilestone, refund: bigint) {
    const before = this.releasedTotal();
    const h = m.held - refund;
    const fee = feeOn(this.platformFee, this.amount, before + h) - feeOn(this.platformFee, this.amount, before);
    m.held = 0n;
    m.refunded += refund;
    m.released += h;
    m.fee += fee;
    m.entries.push({
      type: refund > 0n ? 'split' : 'release',
      postings: nonZero({ custody: -(refund + h), payer_refunds: refund, recipient_payable: h - fee, platform_fees: fee }),
    });
  }

  private refund(m: ModelMilestone, part: bigint) {
    m.held -= part;
    m.refunded += part;
    m.entries.push({ type: 'refund', postings: { custody: -part, payer_refunds: part } });
  }

  /** One milestone takes `action` (already allowed); `part` is a partial refund's or a split's amount. */
  private apply(m: ModelMilestone, action: Action, resolution?: string, part?: bigint) {
    const was = m.status;
    if (action === 'deposit') {
      m.held = m.amount;
      m.status = 'in_custody';
      m.entries.push({ type: 'deposit', postings: { payer_deposits: -m.amount, custody: m.amount } });
    } else if (action === 'approve') m.status = 'pending_release';
    else if (action === 'release' || (action === 'resolve' && resolution === 'release')) {
      this.release(m, 0n);
      m.status = 'released';
    } else if (action === 'dispute') m.status = 'disputed';
    else if (action === 'resolve' && resolution === 'split') {
      this.release(m, part!);
      m.status = 'released';
    } else if (part !== undefined && part < m.held)
      this.refund(m, part); // a partial refund: the status stays
    else {
      this.refund(m, m.held);
      m.status = 'refunded';
    }
    // The auto-release is armed by the approval and kept while the milestone stays pending release.
    if (m.status !== 'pending_release') m.dueAt = null;
    else if (was !== 'pending_release') {
      m.dueAt = m.autoRelease === null ? null : this.offset + m.autoRelease;
      m.armedAt = this.tick;
    }
  }

  /** The API's answer to a request, applied when allowed. `on` is a milestone's index, or undefined for the payment. */
  request(on: number | undefined, action: Action, resolution?: string, part?: bigint): Expected {
    this.tick++;
    const isSplit = action === 'resolve' && resolution === 'split';
    const field = isSplit ? 'refund_amount' : 'amount';
    if (on !== undefined) {
      const m = this.ms[on];
      if (!FROM[action].includes(m.status)) return { code: 409, message: `cannot ${action} a milestone whose status is ${m.status}` };
      if (part !== undefined && (part > m.held || (isSplit && part === m.held))) return { code: 400, field };
      this.apply(m, action, resolution, part);
      return { code: 200 };
    }
    const status = this.status();
    const refused = { code: 409, message: `cannot ${action} a payment whose status is ${status}` } as const;
    if (!this.ms.some((m) => FROM[action].includes(m.status))) return refused;
    const held = this.held();
    if (part !== undefined && (part > held || (isSplit && part === held))) return { code: 400, field };
    if (isSplit || (part !== undefined && part < held)) {
      // A partial refund or a split of the payment: only while exactly one milestone holds money.
      const holders = this.ms.filter((m) => m.held > 0n);
      if (holders.length !== 1) return refused;
      this.apply(holders[0], action, resolution, part);
      return { code: 200 };
    }
    // Every milestone the action applies to, in order (each release's fee reads the running total).
    for (const m of this.ms.filter((x) => FROM[action].includes(x.status))) this.apply(m, action, resolution);
    return { code: 200 };
  }

  /** Move the test clock: a passed deposit deadline cancels; each due auto-release fires, earliest first (the first milestone's on a tie). */
  advance(seconds: number) {
    this.tick++;
    if (TERMINAL.includes(this.status())) return;
    this.offset += seconds;
    if (this.status() === 'pending_deposit') {
      if (this.offset >= DEPOSIT_DEADLINE_SECONDS) for (const m of this.ms) m.status = 'cancelled';
      return;
    }
    for (;;) {
      const due = this.ms.filter((m) => m.status === 'pending_release' && m.dueAt !== null && m.dueAt <= this.offset);
      if (due.length === 0) return;
      const first = due.reduce((a, b) => (b.dueAt! < a.dueAt! || (b.dueAt === a.dueAt && b.armedAt < a.armedAt) ? b : a));
      this.apply(first, 'release');
    }
  }
}

const feeOn = (platformFee: bigint, amount: bigint, released: bigint) => (platformFee * released) / amount;
const nonZero = (p: Partial<Record<LedgerAccount, bigint>>) =>
  Object.fromEntries(Object.entries(p).filter(([, v]) => v !== 0n)) as Partial<Record<LedgerAccount, bigint>>;

/**
 * docs/concepts.md's rule, written here apart from the service's: pending_deposit if every milestone
 * awaits the deposit; cancelled if every one was cancelled; disputed if any is; pending_release if
 * money is held and every milestone holding money is pending release; in_custody if money is held;
 * released if something was released; refunded otherwise.
 */
function statusRule(ms: { status: Status; held: bigint; released: bigint }[]): Status {
  if (ms.every((m) => m.status === 'pending_deposit')) return 'pending_deposit';
  if (ms.every((m) => m.status === 'cancelled')) return 'cancelled';
  if (ms.some((m) => m.status === 'disputed')) return 'disputed';
  const holding = ms.filter((m) => m.held > 0n);
  if (holding.length > 0 && holding.every((m) => m.status === 'pending_release')) return 'pending_release';
  if (holding.length > 0) return 'in_custody';
  if (ms.some((m) => m.released > 0n)) return 'released';
  return 'refunded';
}

const currencies: readonly { currency: string; exponent: number }[] = [
  { currency: 'JPY', exponent: 0 },
  { currency: 'USD', exponent: 2 },
  { currency: 'BHD', exponent: 3 },
];

/** What a step asks for: an action, a partial refund or a split of an amount, or one of the resolutions. */
type Request = 'deposit' | 'approve' | 'release' | 'dispute' | 'refund' | 'refund_part' | 'resolve_release' | 'resolve_refund' | 'split';
/** The requests each action of FROM stands for. */
const REQUESTS: Record<Action, readonly Request[]> = {
  deposit: ['deposit'],
  approve: ['approve'],
  release: ['release'],
  dispute: ['dispute'],
  refund: ['refund', 'refund_part'],
  resolve: ['resolve_release', 'resolve_refund', 'split'],
};
/**
 * The requests a step of kind `allowed` picks from, for a milestone's status or each of the
 * payment's milestones' (some twice: towards releases, so that the fee rule is exercised).
 */
const allowedRequests = (statuses: readonly Status[]): Request[] =>
  (Object.keys(FROM) as Action[])
    .filter((a) => statuses.some((s) => FROM[a].includes(s)))
    .flatMap((a) => REQUESTS[a])
    .flatMap((r) => (['approve', 'release', 'split', 'refund_part'].includes(r) ? [r, r] : [r]));

/**
 * `on`: a milestone's index (taken modulo their number), or null for the payment's own action.
 * `permille`: a partial refund's or a split's share of what its target holds, up to 110 % (a 400 above 100 %).
 * `allowed`: one of the requests the model allows its target now (`pick` modulo their number), so
 * that lifecycles go somewhere; `act` asks for anything, allowed or not.
 */
type Step =
  | { kind: 'act'; on: number | null; request: Request; permille: number }
  | { kind: 'allowed'; on: number | null; pick: number; permille: number }
  | { kind: 'clock'; seconds: number };

// Most milestone actions go to the first three, so that a milestone sees several steps.
const target = fc.oneof(
  { arbitrary: fc.constant(null), weight: 2 },
  { arbitrary: fc.nat(2), weight: 3 },
  { arbitrary: fc.nat(49), weight: 1 },
);
const permille = fc.oneof(fc.integer({ min: 1, max: 999 }), fc.constantFrom(1000, 1001, 1100));
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({ on: target, pick: fc.nat(11), permille }).map((r): Step => ({ kind: 'allowed', ...r })),
    weight: 6,
  },
  {
    arbitrary: fc
      .record({ on: target, request: fc.constantFrom(...Object.values(REQUESTS).flat()), permille })
      .map((r): Step => ({ kind: 'act', ...r })),
    weight: 3,
  },
  {
    arbitrary: fc.constantFrom(1800, 3600, 7200, 86_400).map((seconds): Step => ({ kind: 'clock', seconds })),
    weight: 2,
  },
);
/** 1 to 50 milestones, each 1 minor unit up: the edges (1 and 50) as often as the rest. */
const milestoneSet = fc
  .oneof(fc.constant(1), fc.constant(50), fc.integer({ min: 2, max: 50 }))
  .chain((n) =>
    fc.array(
      fc.record({
        amount: fc.oneof({ arbitrary: fc.constant(1n), weight: 1 }, { arbitrary: fc.bigInt({ min: 2n, max: 2_000_000n }), weight: 5 }),
        // Auto-releases far beyond the run's real time: only the test clock fires them.
        autoRelease: fc.constantFrom(null, 1800, 3600, 7200),
      }),
      { minLength: n, maxLength: n },
    ),
  )
  // The first four at most: the workflow fires due auto-releases one timer apart (about a second each on the dev server).
  .map((ms) => ms.map((m, i) => (i < 4 ? m : { ...m, autoRelease: null })));
const lifecycle = fc.record({
  currency: fc.constantFrom(...currencies),
  milestones: milestoneSet,
  // platform_fee anywhere in 0..amount, as a share of it; the ends exactly (where nothing rounds) now and then.
  feeShare: fc.oneof(
    { arbitrary: fc.constantFrom(0, 1_000_000), weight: 1 },
    { arbitrary: fc.integer({ min: 1, max: 999_999 }), weight: 4 },
  ),
  depositFirst: fc.integer({ min: 0, max: 3 }).map((n) => n > 0),
  steps: fc.array(step, { minLength: 6, maxLength: 11 }),
});

/** Minor units of an amount the API shows in major units: exact, by its decimal text. */
const minorOf = (n: number, exponent: number) => BigInt(n.toFixed(exponent).replace('.', ''));

describe('random staged lifecycles keep every minor unit accounted for', () => {
  it('after every step the payment is what the docs say, per milestone and in all; the ledger matches and verifies', async () => {
    const own = await stack.newAccount();
    const key = own.test_api_key;
    const get = async (id: string) => (await stack.http.get(`/api/v1/payments/${id}`, { key })).body;

    await fc.assert(
      fc.asyncProperty(lifecycle, async ({ currency: { currency, exponent }, milestones, feeShare, depositFirst, steps }) => {
        const amountMinor = milestones.reduce((s, m) => s + m.amount, 0n);
        const feeMinor = (amountMinor * BigInt(feeShare)) / 1_000_000n;
        const major = (minor: bigint) => Number(formatMajor(minor, currency, exponent));
        const minor = (n: number) => minorOf(n, exponent);
        const model = new Model(amountMinor, feeMinor, milestones);
        const created = await stack.http.post('/api/v1/payments', {
          key,
          body: validPayment({
            amount: major(amountMinor),
            currency,
            platform_fee: major(feeMinor),
            deposit_deadline_seconds: DEPOSIT_DEADLINE_SECONDS,
            milestones: milestones.map((m) => ({
              amount: major(m.amount),
              ...(m.autoRelease === null ? {} : { auto_release_after_seconds: m.autoRelease }),
            })),
          }),
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const id: string = created.body.id;
        const msIds: string[] = created.body.milestones.map((m: { id: string }) => m.id);
        expect(msIds).toHaveLength(milestones.length);

        /** The model's payment, as the API shows it (release_at as whether one is set). */
        const expected = () => ({
          status: model.status(),
          amount_held: model.held(),
          amount_released: model.releasedTotal(),
          amount_refunded: model.ms.reduce((s, m) => s + m.refunded, 0n),
          fee_collected: model.ms.reduce((s, m) => s + m.fee, 0n),
          milestones: model.ms.map((m) => ({
            status: m.status,
            amount_held: m.held,
            amount_released: m.released,
            amount_refunded: m.refunded,
            fee_collected: m.fee,
            release_at: m.dueAt !== null,
          })),
        });
        const shown = (p: any) => ({
          status: p.status,
          amount_held: minor(p.amount_held),
          amount_released: minor(p.amount_released),
          amount_refunded: minor(p.amount_refunded),
          fee_collected: minor(p.fee_collected),
          milestones: p.milestones.map((m: any) => ({
            status: m.status,
            amount_held: minor(m.amount_held),
            amount_released: minor(m.amount_released),
            amount_refunded: minor(m.amount_refunded),
            fee_collected: minor(m.fee_collected),
            release_at: m.release_at !== null,
          })),
        });

        /** The invariants of docs/money.md and the status rule, read from the payment alone. */
        const checkInvariants = (p: any) => {
          const ms = p.milestones.map((m: any) => ({
            status: m.status as Status,
            amount: minor(m.amount),
            held: minor(m.amount_held),
            released: minor(m.amount_released),
            refunded: minor(m.amount_refunded),
            fee: minor(m.fee_collected),
          }));
          for (const m of ms) {
            const deposited = ['pending_deposit', 'cancelled'].includes(m.status) ? 0n : m.amount;
            expect(m.held + m.released + m.refunded).toBe(deposited);
          }
          const sum = (k: 'amount' | 'held' | 'released' | 'refunded' | 'fee') => ms.reduce((s: bigint, m: any) => s + m[k], 0n);
          expect(sum('amount')).toBe(minor(p.amount));
          expect(sum('held')).toBe(minor(p.amount_held));
          expect(sum('released')).toBe(minor(p.amount_released));
          expect(sum('refunded')).toBe(minor(p.amount_refunded));
          expect(sum('fee')).toBe(minor(p.fee_collected));
          expect(minor(p.fee_collected)).toBe((minor(p.platform_fee) * minor(p.amount_released)) / minor(p.amount));
          expect(p.status).toBe(statusRule(ms));
        };

        let before = await get(id);
        if (depositFirst) steps = [{ kind: 'act', on: null, request: 'deposit', permille: 1 }, ...steps];
        for (const s of steps) {
          let label = JSON.stringify(s);
          let res;
          let want: Expected;
          if (s.kind === 'clock') {
            model.advance(s.seconds);
            want = { code: 200 };
            res = await stack.http.post(`/api/v1/test_helpers/payments/${id}/advance`, { key, body: { seconds: s.seconds } });
          } else {
            let on = s.on === null ? undefined : s.on % milestones.length;
            let request: Request;
            if (s.kind === 'act') request = s.request;
            else {
              // Among the milestones still open, so that the step goes somewhere.
              const open = model.ms.flatMap((m, i) => (TERMINAL.includes(m.status) ? [] : [i]));
              if (s.on !== null && open.length > 0) on = open[s.on % open.length];
              const allowed = allowedRequests(on === undefined ? model.ms.map((m) => m.status) : [model.ms[on].status]);
              // Nothing is allowed in a final status: any request shows it refused.
              request = allowed.length === 0 ? 'approve' : allowed[s.pick % allowed.length];
              label += ` → ${request}${on === undefined ? '' : ` of milestone ${on}`}`;
            }
            // A deposit is the payment's alone: a milestone has no deposit route.
            if (request === 'deposit') on = undefined;
            const [action, resolution] = (
              request === 'split'
                ? ['resolve', 'split']
                : request === 'refund_part'
                  ? ['refund']
                  : request.startsWith('resolve_')
                    ? request.split('_')
                    : [request]
            ) as [Action, string?];
            let amount: bigint | undefined;
            if (request === 'refund_part' || request === 'split') {
              const held = on === undefined ? model.held() : model.ms[on].held;
              amount = (held * BigInt(s.permille)) / 1000n;
              if (amount < 1n) amount = 1n;
            }
            want = model.request(on, action, resolution, amount);
            const body =
              action === 'refund'
                ? amount === undefined
                  ? undefined
                  : { amount: major(amount) }
                : action === 'resolve'
                  ? { resolution, ...(amount === undefined ? {} : { refund_amount: major(amount) }) }
                  : undefined;
            const path = on === undefined ? `/api/v1/payments/${id}/${action}` : `/api/v1/payments/${id}/milestones/${msIds[on]}/${action}`;
            res = await stack.http.post(path, { key, body });
          }
          expect(res.status, `${label}: ${JSON.stringify(res.body)}`).toBe(want.code);
          if (want.code === 409) {
            expect(res.body.error.code).toBe('invalid_transition');
            expect(res.body.error.message.startsWith(want.message), `${label}: ${res.body.error.message}`).toBe(true);
          }
          if (want.code === 400) expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual([want.field]);

          // A test clock fires its first due timer in the answer and the others right after: wait for them.
          const after =
            s.kind === 'clock'
              ? await eventually(
                  async () => {
                    const p = await get(id);
                    return JSON.stringify(shown(p), big) === JSON.stringify(expected(), big) ? p : undefined;
                  },
                  20_000,
                  `${label}: ${JSON.stringify(expected(), big)}`,
                ).catch(() => get(id))
              : await get(id);
          expect(shown(after), label).toEqual(expected());
          checkInvariants(after);
          if (want.code === 200 && s.kind !== 'clock') expect(res.body).toEqual(after);
          // A refused request changed nothing.
          if (want.code !== 200) expect(after).toEqual(before);
          before = after;
        }

        // One ledger entry per milestone and movement, as the model made them, and ledger:verify finds nothing.
        const count = model.ms.reduce((n, m) => n + m.entries.length, 0);
        const ledger = await eventually(
          async () => {
            const entries = (await stack.http.get(`/api/v1/payments/${id}/ledger`, { key })).body.data;
            return entries.length >= count ? entries : undefined;
          },
          20_000,
          `${count} ledger entries`,
        );
        const byMilestone = msIds.map((msId) =>
          ledger
            .filter((e: any) => e.milestone_id === msId)
            .map((e: any) => ({
              type: e.type,
              postings: Object.fromEntries(e.postings.map((p: { account: string; amount: number }) => [p.account, minor(p.amount)])),
            })),
        );
        expect(byMilestone).toEqual(model.ms.map((m) => m.entries));
        expect(ledger).toHaveLength(count);
        expect(await stack.services.ledger.verify(own.account_id)).toEqual([]);
      }),
      // A fixed seed, so that every run of the file asks the same; FC_SEED=n explores others. A failure
      // prints its seed and path (replay it with both). Shrinking over the real stack is slow: it stops
      // after a minute, with the smallest counterexample found by then.
      { numRuns: 8, seed: Number(process.env.FC_SEED ?? 7), interruptAfterTimeLimit: 60_000 },
    );
  }, 180_000);
});

/** JSON of bigints, for comparing and printing. */
const big = (_key: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);
