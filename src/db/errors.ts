/**
 * PostgreSQL refused the data itself (SQLSTATE class 22, data exception, e.g. an untranslatable
 * character; class 23, integrity constraint): the same write can never succeed, so retrying it is
 * pointless. Anything else (connection lost, server shutting down) may succeed later.
 */
export function isDataRefusal(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^2[23][0-9A-Z]{3}$/.test(code);
}
