import { ConfigError } from '../config';

/** A start-up failure is one clear line on stderr and exit code 1, not a stack trace. */
export function exitOnStartupError(err: unknown): never {
  const message = err instanceof ConfigError ? err.message : `start-up failed: ${(err as Error)?.message ?? String(err)}`;
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
