/**
 * How a transition's reason travels through Temporal: as its keyed hash, never the text
 * (docs/architecture.md, "Personal data"). No imports, so workflows may read it.
 */

/** How a reason's keyed hash starts. */
export const REASON_HASH_PREFIX = 'hmac:';

export const isReasonHash = (reason: string | null): reason is string => reason !== null && /^hmac:[0-9a-f]{64}$/.test(reason);
