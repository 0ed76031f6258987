/**
 * Loopback only to the ports listed (docs/security.md): every spelling of a loopback address is
 * seen as loopback, refused unless WEBHOOK_LOOPBACK_PORTS lists its port, and a stack's own port
 * never; WEBHOOK_LOOPBACK_PORTS is read once, at start-up, and a bad value stops it.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config';
import { checkResolvedHost, checkWebhookUrl, isBlockedAddress, isLoopbackAddress } from '../../src/webhooks/urlPolicy';

const LISTED = 4000;
const OTHER = 4001;
const STACK = 4002;
const TEST = { livemode: false, allowLoopback: true, loopbackPorts: [[LISTED, LISTED]] as const, stackPorts: new Set([STACK]) };
const OFF = { livemode: false, allowLoopback: false, loopbackPorts: [[LISTED, LISTED]] as const };
const LIVE = { livemode: true, allowLoopback: true, loopbackPorts: [[LISTED, LISTED]] as const };

/** 127.0.0.0/8 and ::1 as an attacker may spell them in a URL: IPv4 forms, IPv6, IPv4-mapped, -translated and -compatible, dotted and hex, any case. */
const LOOPBACK_HOSTS = [
  '127.0.0.1',
  '127.255.255.254',
  '127.1',
  '0x7f.0.0.1',
  '0177.0.0.1',
  '2130706433',
  'localhost',
  'LocalHost',
  'localhost.',
  'a.localhost',
  '[::1]',
  '[0:0:0:0:0:0:0:1]',
  '[0000:0000:0000:0000:0000:0000:0000:0001]',
  '[::ffff:127.0.0.1]',
  '[::FFFF:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[::FfFf:7F00:0001]',
  '[0:0:0:0:0:ffff:7f00:1]',
  '[::ffff:0:127.0.0.1]',
  '[::ffff:0:7f00:1]',
  '[0:0:0:0:ffff:0:7f00:1]',
  '[::ffff:0:127.1.2.3]',
  '[::127.0.0.1]',
  '[::7f00:1]',
  '[0:0:0:0:0:0:127.0.0.1]',
];

describe('every spelling of loopback', () => {
  it('is seen as loopback, by address', () => {
    for (const a of [
      '::ffff:0:127.0.0.1',
      '::ffff:0:7f00:1',
      '::FFFF:0:7F00:1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::127.0.0.1',
      '::7f00:1',
      '0:0:0:0:0:ffff:7f00:1',
      '::1',
      '127.0.0.1',
      '127.9.9.9',
    ]) {
      expect(isLoopbackAddress(a), a).toBe(true);
      expect(isBlockedAddress(a), a).toBe(true);
    }
    for (const a of ['::', '::2', '::ffff:8.8.8.8', '8.8.8.8', '2606:2800:220:1:248:1893:25c8:1946', '64:ff9b::7f00:1', 'fe80::1'])
      expect(isLoopbackAddress(a), a).toBe(false);
    // IPv4-translated and -compatible forms of a private address are private too.
    for (const a of ['::ffff:0:10.0.0.1', '::ffff:0:a00:1', '::10.0.0.1', '::ffff:0:169.254.169.254'])
      expect(isBlockedAddress(a), a).toBe(true);
  });

  it('is refused on a port WEBHOOK_LOOPBACK_PORTS does not list, with a message naming the setting', async () => {
    for (const host of LOOPBACK_HOSTS) {
      for (const scheme of ['http', 'https']) {
        const url = `${scheme}://${host}:${OTHER}/admin`;
        expect(checkWebhookUrl(url, TEST), url).toMatchObject({ ok: false, message: expect.stringContaining('WEBHOOK_LOOPBACK_PORTS') });
      }
    }
    // A listed port is allowed, in every spelling, and the resolved check says the target is loopback.
    for (const host of LOOPBACK_HOSTS) {
      const url = `http://${host}:${LISTED}/hook`;
      const check = checkWebhookUrl(url, TEST);
      expect(check, url).toMatchObject({ ok: true });
      if (!host.includes('localhost')) expect(await checkResolvedHost(new URL(url), TEST), url).toMatchObject({ ok: true, loopback: true });
    }
  });

  it('is refused on a port of the stack’s own even when listed, and whenever loopback is off or the mode is live', () => {
    const listedStack = { ...TEST, loopbackPorts: [[1, 65535]] as const };
    for (const host of LOOPBACK_HOSTS) {
      const own = `http://${host}:${STACK}/x`;
      expect(checkWebhookUrl(own, listedStack), own).toMatchObject({ ok: false, message: expect.stringMatching(/own stack listens on/) });
      for (const scheme of ['http', 'https']) {
        const url = `${scheme}://${host}:${LISTED}/hook`;
        expect(checkWebhookUrl(url, OFF).ok, `${url} (loopback off)`).toBe(false);
        expect(checkWebhookUrl(url, LIVE).ok, `${url} (live)`).toBe(false);
      }
    }
  });

  it('a name resolving to loopback on an unlisted port is refused at the resolved check', async () => {
    expect(await checkResolvedHost(new URL(`http://localhost:${OTHER}/x`), TEST)).toMatchObject({
      ok: false,
      message: expect.stringContaining('WEBHOOK_LOOPBACK_PORTS'),
    });
    expect(await checkResolvedHost(new URL(`http://localhost:${LISTED}/x`), TEST)).toMatchObject({ ok: true, loopback: true });
    expect(await checkResolvedHost(new URL('https://93.184.216.34/x'), TEST)).toMatchObject({ ok: true, loopback: false });
  });
});

describe('WEBHOOK_LOOPBACK_PORTS', () => {
  it('is empty unless set', () => {
    expect(loadConfig({}).WEBHOOK_LOOPBACK_PORTS).toEqual([]);
    expect(loadConfig({ WEBHOOK_ALLOW_LOOPBACK: 'true' }).WEBHOOK_LOOPBACK_PORTS).toEqual([]);
  });

  it('reads ports and runs of ports', () => {
    expect(loadConfig({ WEBHOOK_LOOPBACK_PORTS: '4000, 4100-4199,5000 - 5001' }).WEBHOOK_LOOPBACK_PORTS).toEqual([
      [4000, 4000],
      [4100, 4199],
      [5000, 5001],
    ]);
  });

  it('a bad value stops start-up with a message naming it', () => {
    for (const bad of ['abc', '0', '70000', '4000-3999', '4000-', '-1', '1.5', '4000;4001', '0x10']) {
      expect(() => loadConfig({ WEBHOOK_LOOPBACK_PORTS: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ WEBHOOK_LOOPBACK_PORTS: bad }), bad).toThrow(/WEBHOOK_LOOPBACK_PORTS/);
    }
  });

  it('listing a port a setting gives the stack itself stops start-up', () => {
    for (const [setting, value] of [
      ['PORT', '3000'],
      ['API_METRICS_PORT', '9465'],
      ['WORKER_METRICS_PORT', '9464'],
      ['TEMPORAL_DEV_PORT', '7233'],
      ['TEMPORAL_UI_PORT', '8233'],
    ]) {
      expect(() => loadConfig({ WEBHOOK_LOOPBACK_PORTS: `4000,${value}` }), setting).toThrow(
        /WEBHOOK_LOOPBACK_PORTS: port \d+ is one this stack listens on/,
      );
    }
  });
});
