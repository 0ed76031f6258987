/** Where a command looks for Temporal, and the setting that chose it, for messages that name both (docs/settings.md). */
import type { Config } from '../config';

export const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';

/**
 * Where Temporal is looked for, and the setting that chose it: a failure to reach it names both
 * (docs/settings.md, "When Temporal cannot be reached").
 */
export interface TemporalTarget {
  address: string;
  setting: string;
}

/**
 * The server a command talks to: TEMPORAL_ADDRESS, else `fallback` — the dev server `npm start` runs
 * (on TEMPORAL_DEV_PORT: the scripts), or the default address (`npm run api` / `npm run worker`).
 */
export function temporalTarget(
  config: Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_DEV_PORT'>,
  fallback: 'dev-server' | 'default',
): TemporalTarget {
  if (config.TEMPORAL_ADDRESS) return { address: config.TEMPORAL_ADDRESS, setting: `TEMPORAL_ADDRESS=${config.TEMPORAL_ADDRESS}` };
  if (fallback === 'default')
    return { address: DEFAULT_TEMPORAL_ADDRESS, setting: `TEMPORAL_ADDRESS unset, so the default ${DEFAULT_TEMPORAL_ADDRESS}` };
  const address = `127.0.0.1:${config.TEMPORAL_DEV_PORT}`;
  return {
    address,
    setting: `TEMPORAL_DEV_PORT=${config.TEMPORAL_DEV_PORT}, the port of the dev server \`npm start\` runs; set it to the port \`npm start\` was given, or TEMPORAL_ADDRESS for another server`,
  };
}

/** Temporal did not answer at the address tried: the message names it and the setting to change. */
export class TemporalUnreachable extends Error {}

export function temporalUnreachable(target: TemporalTarget, err: unknown, more = ''): TemporalUnreachable {
  const why = err instanceof Error ? err.message : String(err);
  return new TemporalUnreachable(`could not reach Temporal at ${target.address} (${target.setting}): ${why}${more}`);
}
