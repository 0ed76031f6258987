/** How a setting's text is read (src/platform/config.ts): durations, ports, flags, port lists and 32-byte keys, each refusal naming the value. */
import ms from 'ms';
import { z } from 'zod';

export const duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      // `ms` throws on an empty string rather than answering undefined: one message for both.
      const value = text.trim() ? ms(text.trim() as ms.StringValue) : undefined;
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        ctx.addIssue({ code: 'custom', message: `not a duration: "${text}" (use e.g. 250ms, 1 min, 2h)` });
        return z.NEVER;
      }
      return value;
    });

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

export const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true');

/** A comma-separated list of ports (spaces allowed), e.g. `7234, 7235`. */
export const portList = () =>
  z
    .string()
    .default('')
    .transform((text, ctx) => {
      const items = text
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      const ports = items.map(Number);
      const bad = items.find((_, i) => !Number.isInteger(ports[i]) || ports[i] < 1 || ports[i] > 65535);
      if (bad !== undefined) {
        ctx.addIssue({ code: 'custom', message: `not a port: "${bad}" (use a comma-separated list, e.g. 7234,7235)` });
        return z.NEVER;
      }
      return ports;
    });

/** A comma-separated list of ports and runs of ports (`low-high`), e.g. `4000, 4100-4199`: each as `[low, high]`. */
export const portRanges = () =>
  z
    .string()
    .default('')
    .transform((text, ctx) => {
      const ranges: (readonly [number, number])[] = [];
      for (const item of text
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean)) {
        const ends = item.split('-').map((t) => t.trim());
        const valid = ends.length <= 2 && ends.every((t) => /^\d{1,5}$/.test(t));
        const [low, high] = valid ? [Number(ends[0]), Number(ends[ends.length - 1])] : [NaN, NaN];
        if (!(low >= 1 && high <= 65535 && low <= high)) {
          ctx.addIssue({ code: 'custom', message: `not a port or a run of ports: "${item}" (use e.g. 4000 or 4000,4100-4199)` });
          return z.NEVER;
        }
        ranges.push([low, high] as const);
      }
      return ranges;
    });

/**
 * WEBHOOK_SECRET_KEY: 32 random bytes, as 64 hex digits or as base64 (44 characters, e.g. the
 * output of `openssl rand -base64 32`). It keys AES-256-GCM for webhook secrets at rest.
 */
export function parseSecretKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/]{43}=$/.test(trimmed)) {
    const key = Buffer.from(trimmed, 'base64');
    if (key.length === 32) return key;
  }
  return undefined;
}
