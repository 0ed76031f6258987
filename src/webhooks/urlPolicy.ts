import { BlockList, isIP } from 'node:net';
import dns from 'node:dns';
import { lookup } from 'node:dns/promises';
import { Agent } from 'undici';

/** Addresses a live-mode webhook may never reach: private, loopback, link-local, metadata, unspecified. */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  // ::/96 holds ::, ::1 and the IPv4-compatible ::a.b.c.d; 64:ff9b::/96 (NAT64) and 2002::/16
  // (6to4) embed IPv4 addresses; fec0::/10 is the old site-local range.
  ['::', 96], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['2002::', 16],
] as const) blocked.addSubnet(net, prefix, 'ipv6');

export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1], 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return blocked.check(address, 'ipv4');
}

function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; message: string };

/**
 * Syntax and scheme rules: absolute https; plain http only to a loopback host in test mode.
 * Live mode also refuses literal private addresses here; names are resolved by `checkResolvedHost`.
 */
export function checkWebhookUrl(text: string, livemode: boolean): UrlCheck {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: 'url must be an absolute URL' };
  }
  if (url.username || url.password) return { ok: false, message: 'url must not carry credentials' };
  const host = bareHost(url);
  const loopback = host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
  if (url.protocol === 'http:') {
    if (livemode || !loopback) return { ok: false, message: 'url must use https (plain http is allowed only for loopback hosts in test mode)' };
  } else if (url.protocol !== 'https:') {
    return { ok: false, message: 'url must use https' };
  }
  if (livemode && (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) && isBlockedAddress(host)))) {
    return { ok: false, message: 'url host is a private, loopback, link-local or metadata address' };
  }
  return { ok: true, url };
}

/** Live mode: every address the host resolves to must be public (checked at configure and at delivery). */
export async function checkResolvedHost(url: URL): Promise<UrlCheck> {
  const host = bareHost(url);
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return { ok: false, message: `url host ${host} does not resolve` };
  }
  if (addresses.length === 0 || addresses.some(isBlockedAddress)) {
    return { ok: false, message: 'url host resolves to a private, loopback, link-local or metadata address' };
  }
  return { ok: true, url };
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address?: string | dns.LookupAddress[], family?: number) => void;

/**
 * The resolver live-mode deliveries connect through: every address a name resolves to is checked,
 * and the connection goes to the address that was checked, so DNS cannot change its answer
 * between our check and the connect (DNS rebinding).
 */
export function checkedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err);
    const bad = addresses.find((a) => isBlockedAddress(a.address));
    if (bad || addresses.length === 0) {
      const refusal: NodeJS.ErrnoException = new Error(`${hostname} resolves to a private, loopback, link-local or metadata address`);
      refusal.code = 'EBLOCKEDADDRESS';
      return callback(refusal);
    }
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

/** HTTP agent for live-mode deliveries: connects only to public addresses. */
export const liveDeliveryAgent = new Agent({ connect: { lookup: checkedLookup as never } });
