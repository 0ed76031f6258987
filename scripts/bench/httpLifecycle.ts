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
