/**
 * Funding by bank transfer (docs/bank.md, "Funding by bank transfer"), with a real worker, Temporal
 * and PostgreSQL: a payment created with `funding: "bank_transfer"` answers where and with which
 * ISO 11649 reference its payer transfers; every payment has its reference, the same on a retried
 * create; a client's deposit of such a payment is refused.
 */
import { describe, expect, it } from 'vitest';
import { isFundingReference } from '../src/payments/fundingReference.rules';
import { useAccount, useStack, validPayment } from './helpers/stack';

const stack = useStack({
  env: {
    CUSTODY_ACCOUNT_NAME: 'Custody Ltd',
    CUSTODY_ACCOUNT_IBAN: 'DE89 3704 0044 0532 0130 00',
    CUSTODY_ACCOUNT_BIC: 'COBADEFFXXX',
  },
});
const account = useAccount(stack);

describe('a payment funded by bank transfer', () => {
  it('answers its funding instructions: the custody account, its reference, the amount and the deposit deadline', async () => {
    const res = await stack.http.post('/api/v1/payments', {
      key: account.test_api_key,
      body: validPayment({ funding: 'bank_transfer', amount: 125.5, currency: 'EUR' }),
    });
    expect(res.status).toBe(201);
    const p = res.body;
    expect(p.funding).toBe('bank_transfer');
    expect(isFundingReference(p.funding_reference)).toBe(true);
    expect(p.funding_instructions).toStrictEqual({
      type: 'bank_transfer',
      iban: 'DE89370400440532013000',
      bic: 'COBADEFFXXX',
      account_holder_name: 'Custody Ltd',
      reference: p.funding_reference,
      amount: 125.5,
      currency: 'EUR',
      amount_received: 0,
      amount_remaining: 125.5,
      expires_at: p.deposit_deadline,
    });
    // The read model shows the same.
    const got = await stack.http.get(`/api/v1/payments/${p.id}`, { key: account.test_api_key });
    expect(got.body.funding_instructions).toStrictEqual(p.funding_instructions);
  });

  it('refuses a deposit reported by the client with 409 funded_by_bank_transfer, and changes nothing', async () => {
    const p = (await stack.http.post('/api/v1/payments', { key: account.test_api_key, body: validPayment({ funding: 'bank_transfer' }) }))
      .body;
    const res = await stack.http.post(`/api/v1/payments/${p.id}/deposit`, { key: account.test_api_key });
    expect(res.status).toBe(409);
    expect(res.body.error.code ?? res.body.error?.type ?? res.body.code).toBe('funded_by_bank_transfer');
    expect((await stack.http.get(`/api/v1/payments/${p.id}`, { key: account.test_api_key })).body.status).toBe('pending_deposit');
  });

  it('gives every payment a reference, "api" by default, the same on a retried create', async () => {
    const key = `funding-${Date.now()}`;
    const first = await stack.http.post('/api/v1/payments', {
      key: account.test_api_key,
      body: validPayment(),
      headers: { 'Idempotency-Key': key },
    });
    const again = await stack.http.post('/api/v1/payments', {
      key: account.test_api_key,
      body: validPayment(),
      headers: { 'Idempotency-Key': key },
    });
    expect(first.body).toMatchObject({ funding: 'api', funding_instructions: null });
    expect(isFundingReference(first.body.funding_reference)).toBe(true);
    expect(again.body.funding_reference).toBe(first.body.funding_reference);
    // An api payment's deposit is the platform's to report, as before.
    expect((await stack.http.post(`/api/v1/payments/${first.body.id}/deposit`, { key: account.test_api_key })).status).toBe(200);
  });

  it('refuses an unknown funding with 400 naming the field, creating nothing', async () => {
    const res = await stack.http.post('/api/v1/payments', { key: account.test_api_key, body: validPayment({ funding: 'card' }) });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('funding');
  });
});
