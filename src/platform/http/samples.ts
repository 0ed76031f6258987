/**
 * The sample objects the OpenAPI document's examples are made of (src/platform/http/components.ts): one
 * payment seen through every resource. `test/unit/openapi-examples.test.ts` parses each example with
 * its schema and posts the create example as it is.
 */
import { pendingMilestone } from '../../payments/payment.view';

export const payment = {
  id: 'pay_01JQ8Z3N4X5Y6Z7A8B9C0D1E2F',
  object: 'payment',
  amount: 125.5,
  currency: 'USD',
  status: 'pending_deposit',
  payer_email: 'payer@example.com',
  recipient_email: 'seller@example.com',
  description: 'Order 1001: vintage camera',
  metadata: { order_id: '1001' },
  livemode: false,
  deposit_deadline: '2026-11-30T10:00:00.000Z',
  auto_release_after_seconds: 259200,
  funding: 'api',
  funding_reference: 'RF67Z3N4X5Y6Z7A8B9C0D1E2F',
  funding_instructions: null,
  funded_by: null,
  created_at: '2026-11-23T10:00:00.000Z',
  updated_at: '2026-11-23T10:00:00.000Z',
  platform_fee: 6.27,
  amount_held: 0,
  amount_released: 0,
  amount_refunded: 0,
  fee_collected: 0,
  milestones: [pendingMilestone('ms_01JQ8Z3N4X5Y6Z7A8B9C0D1E2F', 125.5, 'seller@example.com')],
  dispute: null,
} as const;
export const inCustody = {
  ...payment,
  status: 'in_custody',
  funded_by: 'api',
  updated_at: '2026-11-23T10:05:00.000Z',
  amount_held: 125.5,
  milestones: [{ ...payment.milestones[0], status: 'in_custody', amount_held: 125.5 }],
} as const;
export const ledgerEntry = {
  id: 'le_4b1f0c9e8d7a6b5c4d3e2f1a0b',
  object: 'ledger_entry',
  payment_id: payment.id,
  milestone_id: payment.milestones[0].id,
  recipient_id: null,
  version: 2,
  type: 'deposit',
  currency: 'USD',
  livemode: false,
  created_at: inCustody.updated_at,
  postings: [
    { account: 'payer_deposits', address: 'payer_deposits', amount: -125.5 },
    { account: 'custody', address: `escrow:${payment.id}`, amount: 125.5 },
  ],
} as const;
export const webhook = {
  id: 'wh_01JQ8Z3N4X5Y6Z7A8B9C0D1E2G',
  url: 'https://example.com/hooks/custody',
  events: ['payment.created', 'payment.released'],
  active: true,
} as const;
export const apiKey = {
  id: 'key_01JQ8Z3N4X5Y6Z7A8B9C0D1E2H',
  object: 'api_key',
  mode: 'test',
  last4: 'x9Qa',
  created_at: '2026-11-23T10:00:00.000Z',
};
export const treeHead = {
  tree_size: 8,
  root_hash: 'XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=',
  timestamp: '2026-11-23T10:06:00.000Z',
  signature: 'o8m2q0Y0lq7tXzv7bC1yPp5mVvKk3N2c9Wm8o1dJtWv6bUe7PqLr2x1fZs9aHn4GkTjQyR3uVw0XcY5eD6fB7g==',
} as const;
export const event = {
  id: 'evt_01JQ8Z3N4X5Y6Z7A8B9C0D1E2J',
  object: 'event',
  type: 'payment.deposited',
  payment_id: payment.id,
  sequence: 2,
  created_at: '2026-11-23T10:05:00.000Z',
  data: inCustody,
} as const;

export const delivery = {
  id: 'dlv_01JQ8Z3N4X5Y6Z7A8B9C0D1E2K',
  event: 'payment.deposited',
  payment_id: payment.id,
  status: 'pending',
  created_at: inCustody.updated_at,
  next_attempt_at: '2026-11-23T10:06:00.000Z',
  attempts: [
    {
      attempt: 1,
      at: inCustody.updated_at,
      status_code: 500,
      duration_ms: 42,
      error: 'receiver answered HTTP 500',
      response_excerpt: 'oops',
    },
  ],
} as const;

export const list = <T>(item: T) => ({ object: 'list', data: [item], has_more: false }) as const;
export const apiKeyCreated = { ...apiKey, key: 'svc_test_4f9c2b7e1a0d8c6b5e3f2a1d0c9b8x9Qa' };
export const webhookListItem = { ...webhook, disabled_reason: null, livemode: false, created_at: payment.created_at };
export const webhookConfigured = { success: true, webhook: { ...webhook, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } };
export const publicKey = { algorithm: 'Ed25519', public_key: 'GeNM2Ip2VjxYZx8zZbPwKeTmG7LvJbRaxJvO5KD0Hr8=' };
export const createPayment = {
  amount: 125.5,
  currency: 'USD',
  payer_email: 'payer@example.com',
  recipient_email: 'seller@example.com',
  description: 'Order 1001: vintage camera',
  metadata: { order_id: '1001' },
  auto_release_after_seconds: 259200,
  platform_fee: 6.27,
};
export const history = {
  object: 'list',
  data: [
    {
      seq: 1,
      action: 'create',
      from: null,
      to: 'pending_deposit',
      event: 'payment.created',
      actor: apiKey.id,
      reason: null,
      at: payment.created_at,
      milestone_id: null,
    },
    {
      seq: 2,
      action: 'deposit',
      from: 'pending_deposit',
      to: 'in_custody',
      event: 'payment.deposited',
      actor: apiKey.id,
      reason: null,
      at: inCustody.updated_at,
      milestone_id: null,
    },
  ],
  has_more: false,
};
export const balance = {
  object: 'balance',
  livemode: false,
  balances: [{ currency: 'USD', deposited: 125.5, held: 125.5, released: 0, released_net: 0, refunded: 0, fees: 0 }],
};
export const login = { token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyXzAxIn0.c2lnbmF0dXJl', expires_at: '2026-11-23T11:00:00.000Z' };
export const consistencyProof = {
  from: 6,
  to: 8,
  proof: [
    'DrxdNDf74tsVi58Sah0RjjCBgQMdCpSfje3t68VY72o=',
    'yoVOoSjtBQtBs1/8G4e46yveRh6eO1WW7Oa51ZdaCuA=',
    '037kGJdt2VdTwcc4Yrk5j6Kiz5tP8P3+izDNlSCWFLc=',
  ],
};
export const paymentProof = {
  tree_head: treeHead,
  leaves: [
    {
      leaf_index: 6,
      leaf: '{"account_id":"acct_01JQ8Z3N4X5Y6Z7A8B9C0D1E2L","action":"deposit","actor":"key_01JQ8Z3N4X5Y6Z7A8B9C0D1E2H","amount_exponent":2,"amount_minor":12550,"at":"2026-11-23T10:05:00.000Z","currency":"USD","event":"payment.deposited","from":"pending_deposit","kind":"payment.transition","livemode":false,"payment_id":"pay_01JQ8Z3N4X5Y6Z7A8B9C0D1E2F","reason":null,"to":"in_custody","version":2}',
      audit_path: [
        'vBoGQ7EuTS18d5GPROD095qDi2z57FtcKD4fTYhZnms=',
        'yoVOoSjtBQtBs1/8G4e46yveRh6eO1WW7Oa51ZdaCuA=',
        '037kGJdt2VdTwcc4Yrk5j6Kiz5tP8P3+izDNlSCWFLc=',
      ],
    },
  ],
};

/** A delivery's body for an event, as docs/webhooks.md shows it. */
export function webhookExample(event: string): unknown {
  const status: Record<string, string> = {
    'payment.created': 'pending_deposit',
    'payment.deposited': 'in_custody',
    'payment.approved': 'pending_release',
    'payment.released': 'released',
    'payment.cancelled': 'cancelled',
    'payment.refunded': 'refunded',
    'payment.partially_refunded': 'in_custody',
    'payment.disputed': 'disputed',
    'payment.test': 'test',
  };
  // A milestone event: the payment of two milestones, the first of which the event is about.
  const milestoneStatus: Record<string, string> = {
    'payment.milestone_approved': 'pending_release',
    'payment.milestone_released': 'released',
    'payment.milestone_disputed': 'disputed',
  };
  if (milestoneStatus[event]) {
    const released = event === 'payment.milestone_released';
    const first = {
      ...inCustody.milestones[0],
      id: 'ms_01JQ8Z3N4X5Y6Z7A8B9C0D1E3A',
      reference: 'design',
      amount: 25.5,
      status: milestoneStatus[event],
      amount_held: released ? 0 : 25.5,
      amount_released: released ? 25.5 : 0,
      fee_collected: released ? 1.27 : 0,
    };
    const second = { ...inCustody.milestones[0], id: 'ms_01JQ8Z3N4X5Y6Z7A8B9C0D1E3B', reference: 'build', amount: 100, amount_held: 100 };
    const data = {
      ...inCustody,
      status: event === 'payment.milestone_disputed' ? 'disputed' : 'in_custody',
      amount_held: released ? 100 : 125.5,
      amount_released: released ? 25.5 : 0,
      fee_collected: released ? 1.27 : 0,
      milestones: [first, second],
    };
    return { event, payment_id: payment.id, timestamp: inCustody.updated_at, sequence: 3, milestone: first, data };
  }
  return {
    event,
    payment_id: event === 'payment.test' ? 'pay_test' : payment.id,
    timestamp: inCustody.updated_at,
    sequence: event === 'payment.test' ? 0 : 2,
    data: {
      ...inCustody,
      ...(event === 'payment.test' ? { id: 'pay_test' } : {}),
      status: status[event] ?? inCustody.status,
      // Before its deposit (and never deposited), no funding came.
      funded_by: ['pending_deposit', 'cancelled', 'test'].includes(status[event] ?? inCustody.status) ? null : inCustody.funded_by,
    },
  };
}

/** A recipient (docs/concepts.md, "Recipients"), verified, and its balance. */
export const recipient = {
  id: 'rcp_01JQ8Z3N4X5Y6Z7A8B9C0D1E2M',
  object: 'recipient',
  email: 'seller@example.com',
  name: 'Vintage Cameras Ltd',
  country: 'FR',
  type: 'company',
  metadata: { seller_id: '42' },
  livemode: false,
  verification: {
    status: 'verified',
    requirements: { currently_due: [], past_due: [], pending_verification: [], errors: [] },
    disabled_reason: null,
  },
  payouts_enabled: true,
  created_at: '2026-11-23T09:00:00.000Z',
  updated_at: '2026-11-23T09:30:00.000Z',
} as const;
export const createRecipient = {
  email: 'seller@example.com',
  country: 'FR',
  type: 'company',
  name: 'Vintage Cameras Ltd',
  metadata: { seller_id: '42' },
};
export const recipientBalance = {
  object: 'recipient_balance',
  recipient: recipient.id,
  balances: [{ currency: 'USD', pending: 0, available: 119.23, in_transit: 0, paid_out: 0 }],
};
export const recipientUpdated = {
  event: 'recipient.updated',
  recipient_id: recipient.id,
  timestamp: recipient.updated_at,
  sequence: 2,
  data: recipient,
};
