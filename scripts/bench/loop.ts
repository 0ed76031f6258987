/** Closed-loop clients: each starts its next operation the moment its last one ends. */
import { HttpError } from './http';

export interface LoopResult {
  completed: number;
  failed: number;
  /** From the start to the end of the last operation in flight at the deadline. */
  elapsedMs: number;
  /** Failures by kind ("HTTP 409", "WorkflowUpdateFailedError", …), with one example message. */
  errors: Record<string, { count: number; example: string }>;
}

export function errorKind(err: unknown): string {
  if (err instanceof HttpError) return `HTTP ${err.status}`;
  return (err as Error)?.name ?? 'Error';
}

/**
 * `concurrency` clients run `op` until `durationMs` has passed; an operation in flight at the
 * deadline finishes and counts. A failed operation is counted and its client pauses briefly, so
 * a broken stack does not turn into a busy loop.
 */
export async function closedLoop(
  concurrency: number,
  durationMs: number,
  op: (client: number) => Promise<unknown>,
  onTick?: (state: { completed: number; failed: number; elapsedMs: number }) => void,
): Promise<LoopResult> {
  const result: LoopResult = { completed: 0, failed: 0, elapsedMs: 0, errors: {} };
  const started = performance.now();
  const deadline = started + durationMs;
  const ticker = onTick ? setInterval(() => onTick({ ...result, elapsedMs: performance.now() - started }), 250) : undefined;
  const client = async (i: number) => {
    while (performance.now() < deadline) {
      try {
        await op(i);
        result.completed++;
      } catch (err) {
        result.failed++;
        const kind = errorKind(err);
        const entry = (result.errors[kind] ??= { count: 0, example: String((err as Error)?.message ?? err).slice(0, 300) });
        entry.count++;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, (_, i) => client(i)));
  } finally {
    clearInterval(ticker);
  }
  result.elapsedMs = performance.now() - started;
  return result;
}

/** Run `op` for each of `count` items with `concurrency` at once (setup work, not measured). */
export async function forEachConcurrently(count: number, concurrency: number, op: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await op(next++);
    }),
  );
}
