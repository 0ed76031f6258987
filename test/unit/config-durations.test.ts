/**
 * Duration settings (WEBHOOK_TIMEOUT, LEDGER_VERIFY_INTERVAL, …) are parsed once at start-up: a value
 * that is no duration — an empty one too — is a ConfigError naming the setting, never a library's
 * own exception.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config';

describe('duration settings', () => {
  it.each(['', '   ', 'banana', '-5s'])('refuse %j with a message naming the setting', (value) => {
    const load = () => loadConfig({ LEDGER_VERIFY_INTERVAL: value });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(`LEDGER_VERIFY_INTERVAL: not a duration: "${value}"`);
  });

  it('read units as documented', () => {
    const config = loadConfig({ WEBHOOK_TIMEOUT: '250ms', LEDGER_VERIFY_INTERVAL: '2 min' });
    expect([config.WEBHOOK_TIMEOUT, config.LEDGER_VERIFY_INTERVAL]).toEqual([250, 120_000]);
  });
});
