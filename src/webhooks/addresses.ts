/**
 * What an address stands for, whatever its spelling (src/webhooks/urlPolicy.ts; docs/security.md,
 * "Loopback only to the ports listed"): the IPv4 address inside an IPv6 one, and loopback.
 */
import { isIP } from 'node:net';

/** The 16 bytes of an IPv6 address in any spelling (hex groups, `::`, a dotted IPv4 tail), or undefined. */
function ipv6Bytes(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const front = groups(head);
  const back = groups(tail);
  const all = tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  if (all.length !== 8 || all.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return undefined;
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

/**
 * The IPv4 address an address stands for, in every spelling a connection would reach it by: IPv4
 * itself, IPv4-mapped (`::ffff:a.b.c.d`, `::ffff:7f00:1`), IPv4-translated (`::ffff:0:a.b.c.d`) and
 * IPv4-compatible (`::a.b.c.d`, `::7f00:1`; never `::` or `::1`), dotted or hex, any letter case.
 */
export function ipv4Of(address: string): string | undefined {
  if (isIP(address) === 4) return address;
  const bytes = ipv6Bytes(address);
  if (!bytes) return undefined;
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  const ffff = (at: number) => bytes[at] === 0xff && bytes[at + 1] === 0xff;
  const mapped = zeros(0, 10) && ffff(10);
  const translated = zeros(0, 8) && ffff(8) && zeros(10, 12);
  const compatible = zeros(0, 12) && !zeros(12, 15);
  return mapped || translated || compatible ? bytes.slice(12).join('.') : undefined;
}

/** 127.0.0.0/8 in any of its IPv6 spellings, and ::1. */
export function isLoopbackAddress(address: string): boolean {
  const v4 = ipv4Of(address);
  if (v4) return v4.startsWith('127.');
  const bytes = ipv6Bytes(address);
  return bytes !== undefined && bytes.slice(0, 15).every((b) => b === 0) && bytes[15] === 1;
}
