/**
 * The payout settings of docs/settings.md (PAYOUT_OUTBOX_DIR, PAYOUT_BATCH_INTERVAL,
 * BANK_FILE_MAX_BYTES, BANK_INBOX_DIR, BANK_INBOX_INTERVAL, BANK_INBOX_TAKE_LEASE, BANK_FILE_MAX_ELEMENTS, BANK_FILE_MAX_ENTRIES, CUSTODY_ACCOUNT_*): parsed once at start-up, their defaults as documented,
 * a bad value a ConfigError naming the setting.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, custodyAccount, loadConfig } from '../../src/platform/config';

describe('payout settings', () => {
  it('default as documented', () => {
    const config = loadConfig({});
    expect(config.PAYOUT_OUTBOX_DIR).toBe(path.resolve(__dirname, '../../.data/payout-outbox'));
    expect(config.PAYOUT_BATCH_INTERVAL).toBe(3_600_000);
    expect(config.BANK_FILE_MAX_BYTES).toBe(10 * 1024 * 1024);
    expect(config.BANK_INBOX_DIR).toBe(path.resolve(__dirname, '../../.data/bank-inbox'));
    expect(config.BANK_INBOX_INTERVAL).toBe(60_000);
    expect(config.BANK_INBOX_TAKE_LEASE).toBe(300_000);
    expect([config.BANK_FILE_MAX_ELEMENTS, config.BANK_FILE_MAX_ENTRIES]).toEqual([500_000, 50_000]);
    expect([config.CUSTODY_ACCOUNT_NAME, config.CUSTODY_ACCOUNT_IBAN, config.CUSTODY_ACCOUNT_BIC]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('read the custody account, its IBAN in electronic format and its BIC in capitals', () => {
    const config = loadConfig({
      PAYOUT_OUTBOX_DIR: '/srv/outbox',
      PAYOUT_BATCH_INTERVAL: '15 min',
      BANK_FILE_MAX_BYTES: '2048',
      CUSTODY_ACCOUNT_NAME: 'Custody Ltd',
      CUSTODY_ACCOUNT_IBAN: 'de89 3704 0044 0532 0130 00',
      CUSTODY_ACCOUNT_BIC: 'cobadeffxxx',
    });
    expect([config.PAYOUT_OUTBOX_DIR, config.PAYOUT_BATCH_INTERVAL, config.BANK_FILE_MAX_BYTES]).toEqual(['/srv/outbox', 900_000, 2048]);
    expect(custodyAccount(config)).toEqual({ name: 'Custody Ltd', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' });
    // The initiating party's identifier, when the bank gave one (InitgPty/Id in every pain.001).
    const custody = {
      CUSTODY_ACCOUNT_NAME: 'Custody Ltd',
      CUSTODY_ACCOUNT_IBAN: 'DE89370400440532013000',
      CUSTODY_ACCOUNT_BIC: 'COBADEFFXXX',
    };
    const initiated = loadConfig({ ...custody, CUSTODY_ACCOUNT_INITIATOR_ID: ' DE98ZZZ09999999999 ' });
    expect(custodyAccount(initiated)).toMatchObject({ initiatorId: 'DE98ZZZ09999999999' });
    expect(custodyAccount(loadConfig({ ...custody, CUSTODY_ACCOUNT_INITIATOR_ID: '' }))).not.toHaveProperty('initiatorId');
  });

  it.each([
    ['PAYOUT_BATCH_INTERVAL', 'soon', 'PAYOUT_BATCH_INTERVAL: not a duration'],
    ['PAYOUT_BATCH_INTERVAL', '500ms', 'PAYOUT_BATCH_INTERVAL: PAYOUT_BATCH_INTERVAL must be at least 1s'],
    ['BANK_FILE_MAX_BYTES', '0', 'BANK_FILE_MAX_BYTES:'],
    ['BANK_INBOX_INTERVAL', 'often', 'BANK_INBOX_INTERVAL: not a duration'],
    ['BANK_INBOX_INTERVAL', '999ms', 'BANK_INBOX_INTERVAL: BANK_INBOX_INTERVAL must be at least 1s'],
    ['BANK_INBOX_DIR', '', 'BANK_INBOX_DIR:'],
    ['BANK_INBOX_TAKE_LEASE', '500ms', 'BANK_INBOX_TAKE_LEASE: BANK_INBOX_TAKE_LEASE must be at least 1s'],
    ['BANK_FILE_MAX_ELEMENTS', '-1', 'BANK_FILE_MAX_ELEMENTS:'],
    ['BANK_FILE_MAX_ENTRIES', 'many', 'BANK_FILE_MAX_ENTRIES:'],
    ['BANK_FILE_MAX_BYTES', 'ten', 'BANK_FILE_MAX_BYTES:'],
    ['PAYOUT_OUTBOX_DIR', '', 'PAYOUT_OUTBOX_DIR:'],
    ['CUSTODY_ACCOUNT_IBAN', 'DE89370400440532013001', 'CUSTODY_ACCOUNT_IBAN: not a valid IBAN'],
    ['CUSTODY_ACCOUNT_BIC', 'COBA', 'CUSTODY_ACCOUNT_BIC: not a valid BIC'],
    ['CUSTODY_ACCOUNT_NAME', 'x'.repeat(141), 'CUSTODY_ACCOUNT_NAME:'],
    ['CUSTODY_ACCOUNT_INITIATOR_ID', 'DE98_ZZZ', 'CUSTODY_ACCOUNT_INITIATOR_ID: at most 35 characters of the SEPA character set'],
    ['CUSTODY_ACCOUNT_INITIATOR_ID', 'X'.repeat(36), 'CUSTODY_ACCOUNT_INITIATOR_ID:'],
  ])('refuse %s=%j with a message naming it', (name, value, message) => {
    const load = () => loadConfig({ [name]: value });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(message);
  });

  it('name every custody setting a live payout file lacks', () => {
    const config = loadConfig({ CUSTODY_ACCOUNT_NAME: 'Custody Ltd' });
    expect(() => custodyAccount(config)).toThrow(ConfigError);
    expect(() => custodyAccount(config)).toThrow(/CUSTODY_ACCOUNT_IBAN: required[\s\S]*CUSTODY_ACCOUNT_BIC: required/);
  });
});
