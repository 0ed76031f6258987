/** What tests, benchmarks and the local tools share, and the service itself never needs. */
import net from 'node:net';
import { freePort } from '../src/lib/net';

/** The database URL tests and tools use when none is given. */
export const DEFAULT_TEST_DATABASE_URL = 'postgres://127.0.0.1:5432/test';

/** A free port whose next port is free too (stack:cluster's two APIs listen on PORT and PORT+1). */
export async function freePortPair(): Promise<number> {
  for (;;) {
    const p = await freePort();
    const next = await new Promise<boolean>((resolve) => {
      const s = net.createServer();
      s.once('error', () => resolve(false));
      s.listen(p + 1, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (next) return p;
  }
}
