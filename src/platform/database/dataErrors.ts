/**
 * PostgreSQL refused the data itself (SQLSTATE class 22, data exception, e.g. an untranslatable
 * character; class 23, integrity constraint): the same write can never succeed, so retrying it is
 * pointless. Anything else (connection lost, server shutting down) may succeed later. A unique
 * violation (23505) is not a refusal: it is how a write loses a race to a concurrent writer of the
 * same row, and the retry finds the row written (src/payments/projection.repository.ts).
 */
export function isDataRefusal(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code !== UNIQUE_VIOLATION && /^2[23][0-9A-Z]{3}$/.test(code);
}

const UNIQUE_VIOLATION = '23505';
