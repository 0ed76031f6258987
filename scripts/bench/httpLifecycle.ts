/**
 * The lifecycle over HTTP: create → deposit → approve → release. (A) drives the service's API with
 * an API key under /api/v1; (C) drives the plain server with the same loop under no prefix.
 */
import type { JsonClient } from './http';
import type { Recorder } from './stats';

export const LIFECYCLE_STEPS = [
  ['deposit', 'payment.deposited'],
  ['approve', 'payment.approved'],
  ['release', 'payment.released'],
] as const;

export const STEP_NAMES = ['create', ...LIFECYCLE_STEPS.map(([action]) => action)];

export const createBody = (i: number) => ({
  // Whole cents, divided once: 10.07, never 10.070000000000002 (the API refuses a third decimal).
  amount: (1000 + (i % 1000)) / 100,
  currency: 'USD',
  payer_email: 'payer@example.com',
  recipient_email: 'recipient@example.com',
  description: 'bench',
});

let created = 0;

/**
 * One lifecycle. Each transition's answer time goes to `answered` (when given) under the key the
 * webhook receiver uses, `${payment_id} ${event}`, so that the delivery's lag can be taken.
 */
export async function httpLifecycle(api: JsonClient, prefix: string, rec: Recorder, answered?: Map<string, number>): Promise<string> {
  const started = performance.now();
  const payment = await api.call<{ id: string }>(rec, 'create', 'POST', `${prefix}/payments`, createBody(created++));
  answered?.set(`${payment.id} payment.created`, performance.now());
  for (const [action, event] of LIFECYCLE_STEPS) {
    await api.call(rec, action, 'POST', `${prefix}/payments/${payment.id}/${action}`, {});
    answered?.set(`${payment.id} ${event}`, performance.now());
  }
  rec.add('lifecycle', performance.now() - started);
  return payment.id;
}

/** A10's create body: the same amount in `n` milestones of whole cents (the last takes the remainder). */
export function stagedBody(i: number, n: number) {
  const body = createBody(i);
  const cents = Math.round(body.amount * 100);
  const part = Math.floor(cents / n);
  const amounts = Array.from({ length: n }, (_, k) => (k === n - 1 ? cents - part * (n - 1) : part));
  return { ...body, milestones: amounts.map((c, k) => ({ amount: c / 100, reference: `stage-${k + 1}` })) };
}

/**
 * A10's lifecycle: create with `n` milestones, one deposit, then each milestone approved and
 * released in turn (the steps recorded as approve and release). The events each answer owes, keyed
 * as the receiver keys them: every milestone's own, and the payment's approval and release with the last.
 */
export async function stagedLifecycle(
  api: JsonClient,
  prefix: string,
  rec: Recorder,
  n: number,
  answered?: Map<string, number>,
): Promise<string> {
  const started = performance.now();
  const payment = await api.call<{ id: string; milestones: { id: string }[] }>(
    rec,
    'create',
    'POST',
    `${prefix}/payments`,
    stagedBody(created++, n),
  );
  answered?.set(`${payment.id} payment.created`, performance.now());
  await api.call(rec, 'deposit', 'POST', `${prefix}/payments/${payment.id}/deposit`, {});
  answered?.set(`${payment.id} payment.deposited`, performance.now());
  for (const [k, { id }] of payment.milestones.entries()) {
    const last = k === payment.milestones.length - 1;
    await api.call(rec, 'approve', 'POST', `${prefix}/payments/${payment.id}/milestones/${id}/approve`, {});
    answered?.set(`${payment.id} payment.milestone_approved ${id}`, performance.now());
    if (last) answered?.set(`${payment.id} payment.approved`, performance.now());
    await api.call(rec, 'release', 'POST', `${prefix}/payments/${payment.id}/milestones/${id}/release`, {});
    answered?.set(`${payment.id} payment.milestone_released ${id}`, performance.now());
    if (last) answered?.set(`${payment.id} payment.released`, performance.now());
  }
  rec.add('lifecycle', performance.now() - started);
  return payment.id;
}
