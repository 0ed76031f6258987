/**
 * A reason's keyed hash is made by the API (a client's reason) and the worker (a timer's), so its key
 * comes from WEBHOOK_SECRET_KEY, which both hold; the API never holds AUDIT_SIGNING_KEY (docs/audit.md).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, reasonHashKey } from '../../src/platform/config';

const webhookKey = () => randomBytes(32).toString('base64');

describe('the reason hash key', () => {
  it('is available to a process without AUDIT_SIGNING_KEY (the API)', () => {
    const key = reasonHashKey(loadConfig({ WEBHOOK_SECRET_KEY: webhookKey() }));
    expect(key).toHaveLength(32);
  });

  it('is the same for processes sharing WEBHOOK_SECRET_KEY, whatever their AUDIT_SIGNING_KEY', () => {
    const shared = webhookKey();
    const api = reasonHashKey(loadConfig({ WEBHOOK_SECRET_KEY: shared }));
    const worker = reasonHashKey(loadConfig({ WEBHOOK_SECRET_KEY: shared, AUDIT_SIGNING_KEY: randomBytes(32).toString('base64') }));
    expect(worker.equals(api)).toBe(true);
    expect(api.equals(reasonHashKey(loadConfig({ WEBHOOK_SECRET_KEY: webhookKey() })))).toBe(false);
  });

  it('is never the webhook encryption key itself', () => {
    const raw = webhookKey();
    const key = reasonHashKey(loadConfig({ WEBHOOK_SECRET_KEY: raw }));
    expect(key.equals(Buffer.from(raw, 'base64'))).toBe(false);
    expect(createHmac('sha256', key).update('x').digest('hex')).not.toBe(
      createHmac('sha256', Buffer.from(raw, 'base64')).update('x').digest('hex'),
    );
  });

  it('is a clear error naming WEBHOOK_SECRET_KEY when it is missing', () => {
    expect(() => reasonHashKey(loadConfig({}))).toThrow(ConfigError);
    expect(() => reasonHashKey(loadConfig({}))).toThrow('WEBHOOK_SECRET_KEY');
  });
});
