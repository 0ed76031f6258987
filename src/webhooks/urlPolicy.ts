/** Which URLs a webhook may reach, checked by name and by resolved address, and the agent that connects only to checked ones. */
import { BlockList, isIP } from 'node:net';
import dns from 'node:dns';
import { lookup } from 'node:dns/promises';
import { Agent } from 'undici';
import { type Config, stackPorts } from '../platform/config';
import { ipv4Of, isLoopbackAddress } from './addresses';

export { isLoopbackAddress };

/** Addresses a webhook may never reach: private, loopback, link-local, metadata, unspecified. */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  // ::/96 holds ::, ::1 and the IPv4-compatible ::a.b.c.d; 64:ff9b::/96 (NAT64) and 2002::/16
  // (6to4) embed IPv4 addresses; fec0::/10 is the old site-local range.
  ['::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2002::', 16],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

/**
 * IANA special-purpose ranges that are not globally reachable, refused in live mode (a live
 * payment's events must reach a real receiver): documentation (192.0.2/24, 198.51.100/24,
 * 203.0.113/24, 2001:db8::/32), discard-only (100::/64), Teredo (2001::/32) and IPv4-translated
 * (::ffff:0:0:0/96). Test mode may name them, e.g. in examples that never deliver.
 */
const notGloballyReachable = new BlockList();
for (const [net, prefix] of [
  ['192.0.2.0', 24],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
] as const)
  notGloballyReachable.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['2001:db8::', 32],
  ['100::', 64],
  ['2001::', 32],
  ['::ffff:0:0:0', 96],
] as const)
  notGloballyReachable.addSubnet(net, prefix, 'ipv6');

/** Is this address in a special-purpose range that is not globally reachable (live mode refuses it)? */
function isNotGloballyReachable(address: string): boolean {
  const v4 = ipv4Of(address);
  if (v4 && notGloballyReachable.check(v4, 'ipv4')) return true;
  return isIP(address) === 6 && notGloballyReachable.check(address, 'ipv6');
}

/** Cloud metadata names, refused by name whatever they resolve to from here. */
const METADATA_NAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.internal',
]);

/** A run of ports, both ends included (a single port is `[p, p]`). */
export type PortRange = readonly [number, number];

/** Which destinations a configuration may reach: live mode never loopback; test mode only while WEBHOOK_ALLOW_LOOPBACK is on. */
export interface UrlRules {
  livemode: boolean;
  allowLoopback: boolean;
  /** Ports the stack's own processes listen on (config's `stackPorts`): never a webhook's on loopback, whatever the switch. */
  stackPorts?: ReadonlySet<number>;
  /**
   * The only loopback ports a test-mode webhook may reach while the switch is on
   * (WEBHOOK_LOOPBACK_PORTS; docs/security.md, "Loopback only to the ports listed"). None unless given.
   */
  loopbackPorts?: readonly PortRange[];
}

/** The URL rules a webhook of this mode is checked by, at configure and at every delivery (docs/security.md). */
export function webhookUrlRules(config: Config, livemode: boolean): UrlRules {
  return {
    livemode,
    allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK,
    stackPorts: stackPorts(config),
    loopbackPorts: config.WEBHOOK_LOOPBACK_PORTS,
  };
}

const loopbackAllowed = (rules: UrlRules) => !rules.livemode && rules.allowLoopback;

/** The port a URL connects to. */
const portOf = (url: URL) => (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);

/** Does the URL name a port of the stack's own (refused on loopback even while loopback is allowed)? */
const isStackPort = (url: URL, rules: UrlRules) => rules.stackPorts?.has(portOf(url)) ?? false;

/** Does the URL name a loopback port the operator listed (WEBHOOK_LOOPBACK_PORTS)? */
const isListedPort = (url: URL, rules: UrlRules) => {
  const port = portOf(url);
  return (rules.loopbackPorts ?? []).some(([low, high]) => port >= low && port <= high);
};

/** Blocked as the IPv4 address it stands for, or as an IPv6 address (all of `::/96` stays blocked). */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  const v4 = ipv4Of(address);
  if (v4 && blocked.check(v4, 'ipv4')) return true;
  return family === 6 && blocked.check(address, 'ipv6');
}

/** May a configuration under these rules reach this address? */
export function isAllowedAddress(address: string, rules: UrlRules): boolean {
  if (rules.livemode && isNotGloballyReachable(address)) return false;
  if (!isBlockedAddress(address)) return true;
  return loopbackAllowed(rules) && isLoopbackAddress(address);
}

function bareHost(url: URL): string {
  return url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

const isLoopbackName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

type UrlCheck = { ok: true; url: URL } | { ok: false; message: string };
type ResolvedCheck = { ok: true; url: URL; loopback: boolean } | { ok: false; message: string };

const PRIVATE = 'url host is a private, loopback, link-local or metadata address';
const stackPortRefusal = (url: URL) =>
  `url port ${portOf(url)} on loopback is one the service's own stack listens on (API, metrics, Temporal or database): a webhook may never target it`;
const unlistedPortRefusal = (url: URL) =>
  `url port ${portOf(url)} on loopback is not one the operator allows: a test-mode webhook may reach loopback only on the ports WEBHOOK_LOOPBACK_PORTS lists`;
const RESERVED =
  'url host is in a special-purpose range that is not globally reachable (documentation, discard, Teredo or IPv4-translated)';

/** Why a loopback target under rules that allow loopback is refused: a port of the stack's, or one not listed; undefined when allowed. */
function loopbackPortRefusal(url: URL, rules: UrlRules): string | undefined {
  if (isStackPort(url, rules)) return stackPortRefusal(url);
  if (!isListedPort(url, rules)) return unlistedPortRefusal(url);
  return undefined;
}

/**
 * Syntax, scheme and literal-address rules, the same in both modes: absolute https, never a
 * private, link-local or metadata host. The one exception: loopback (plain http too) in test mode
 * while WEBHOOK_ALLOW_LOOPBACK is on, and then only to a port WEBHOOK_LOOPBACK_PORTS lists that is
 * none of the stack's own. Names are resolved by `checkResolvedHost`.
 */
export function checkWebhookUrl(text: string, rules: UrlRules): UrlCheck {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: 'url must be an absolute URL' };
  }
  if (url.username || url.password) return { ok: false, message: 'url must not carry credentials' };
  const host = bareHost(url);
  const loopback = isLoopbackName(host) || (isIP(host) !== 0 && isLoopbackAddress(host));
  const loopbackOk = loopback && loopbackAllowed(rules);
  if (url.protocol === 'http:') {
    if (!loopbackOk) {
      return {
        ok: false,
        message: loopbackAllowed(rules)
          ? 'url must use https (plain http is allowed only for loopback hosts in test mode)'
          : 'url must use https',
      };
    }
  } else if (url.protocol !== 'https:') {
    return { ok: false, message: 'url must use https' };
  }
  if (loopbackOk) {
    const refusal = loopbackPortRefusal(url, rules);
    return refusal ? { ok: false, message: refusal } : { ok: true, url };
  }
  if (loopback || METADATA_NAMES.has(host) || (isIP(host) !== 0 && isBlockedAddress(host))) return { ok: false, message: PRIVATE };
  if (rules.livemode && isIP(host) !== 0 && isNotGloballyReachable(host)) return { ok: false, message: RESERVED };
  return { ok: true, url };
}

/**
 * Every address the host resolves to must be allowed (checked at configure and at delivery).
 * `loopback`: the host is or resolves to loopback (a delivery keeps no excerpt of its answer).
 */
export async function checkResolvedHost(url: URL, rules: UrlRules): Promise<ResolvedCheck> {
  const host = bareHost(url);
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return { ok: false, message: `url host ${host} does not resolve` };
  }
  const loopback = isLoopbackName(host) || addresses.some(isLoopbackAddress);
  if (loopback && isStackPort(url, rules)) return { ok: false, message: stackPortRefusal(url) };
  if (loopback && loopbackAllowed(rules) && !isListedPort(url, rules)) return { ok: false, message: unlistedPortRefusal(url) };
  if (addresses.length === 0 || addresses.some((a) => !isAllowedAddress(a, rules))) {
    return {
      ok: false,
      message: addresses.some((a) => rules.livemode && isNotGloballyReachable(a))
        ? `url host ${host} resolves to a special-purpose address that is not globally reachable`
        : 'url host resolves to a private, loopback, link-local or metadata address',
    };
  }
  return { ok: true, url, loopback };
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address?: string | dns.LookupAddress[], family?: number) => void;

/**
 * The resolver deliveries connect through: every address a name resolves to is checked, and the
 * connection goes to the address that was checked, so DNS cannot change its answer between our
 * check and the connect (DNS rebinding).
 */
function checkedLookupFor(rules: UrlRules) {
  return function checkedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err);
      const bad = addresses.find((a) => !isAllowedAddress(a.address, rules));
      if (bad || addresses.length === 0) {
        const refusal: NodeJS.ErrnoException = new Error(`${hostname} resolves to a private, loopback, link-local or metadata address`);
        refusal.code = 'EBLOCKEDADDRESS';
        return callback(refusal);
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** The live-mode rules' resolver (kept for callers of the earlier API). */
const checkedLookup = checkedLookupFor({ livemode: true, allowLoopback: false });

/** HTTP agent for live-mode deliveries: connects only to public addresses. */
export const liveDeliveryAgent = new Agent({ connect: { lookup: checkedLookup as never } });
const testAgents = {
  loopback: new Agent({ connect: { lookup: checkedLookupFor({ livemode: false, allowLoopback: true }) as never } }),
  strict: new Agent({ connect: { lookup: checkedLookupFor({ livemode: false, allowLoopback: false }) as never } }),
};

/**
 * The agent a delivery under these rules connects through (every mode is checked at connect time):
 * only a target the checks found on loopback, and allowed there, may connect to loopback; any other
 * connects through an agent that never does, so a name that resolves elsewhere at the check and to
 * loopback at the connect reaches nothing on this machine.
 */
export function deliveryAgent(rules: UrlRules, loopbackTarget: boolean): Agent {
  if (rules.livemode) return liveDeliveryAgent;
  return loopbackAllowed(rules) && loopbackTarget ? testAgents.loopback : testAgents.strict;
}
