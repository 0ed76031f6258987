/** Latency samples and their percentiles (nearest rank), in milliseconds. */

export interface Percentiles {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function summarize(samples: number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: samples.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
  };
}

/** Samples by name (an endpoint, a step, "lifecycle"). */
export class Recorder {
  readonly samples = new Map<string, number[]>();

  add(name: string, ms: number): void {
    let list = this.samples.get(name);
    if (!list) this.samples.set(name, (list = []));
    list.push(ms);
  }

  summary(): Record<string, Percentiles> {
    return Object.fromEntries([...this.samples].map(([name, xs]) => [name, summarize(xs)]));
  }

  /** Every sample of the given names together (e.g. all four steps of a lifecycle). */
  pooled(names: string[]): Percentiles {
    return summarize(names.flatMap((n) => this.samples.get(n) ?? []));
  }
}

/** A number for a table: 3 significant digits, no exponent. */
export function fmt(x: number | undefined, digits = 3): string {
  if (x === undefined || !Number.isFinite(x)) return '–';
  if (x === 0) return '0';
  const magnitude = Math.floor(Math.log10(Math.abs(x)));
  const decimals = Math.max(0, digits - 1 - magnitude);
  return x.toFixed(Math.min(decimals, 2));
}
