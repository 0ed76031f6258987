/** The Prometheus metrics of the API and the workers. */
import http from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per process; `/metrics` serves it. */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'API requests by method, route and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});
export const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'API request latency by method, route and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});
export const paymentTransitions = new Counter({
  name: 'payment_transitions_total',
  help: 'Payment transitions recorded, by event',
  labelNames: ['event'] as const,
  registers: [registry],
});
export const projectionFailures = new Counter({
  name: 'payment_projection_failures_total',
  help: 'Read-model projections that failed for good (the payment goes on in Temporal; alert on any)',
  registers: [registry],
});
export const ledgerInvariantViolations = new Gauge({
  name: 'ledger_invariant_violations',
  help: "Breaches of the ledger's invariants found by the last scheduled check (docs/money.md; alert on any)",
  registers: [registry],
});
export const ledgerVerifyLastSuccess = new Gauge({
  name: 'ledger_verify_last_success_timestamp_seconds',
  help: 'When a run of the periodic ledger check last completed (Unix seconds; alert when older than three intervals)',
  registers: [registry],
});
export const ledgerVerifyLastFailure = new Gauge({
  name: 'ledger_verify_last_failure_timestamp_seconds',
  help: 'When a run of the ledger check last failed to complete (Unix seconds; 0: none since the process started)',
  registers: [registry],
});
export const ledgerVerifyInterval = new Gauge({
  name: 'ledger_verify_interval_seconds',
  help: "The ledger check's schedule interval (LEDGER_VERIFY_INTERVAL), for the staleness alert",
  registers: [registry],
});
/** Where the reconciliation's gauges read the stored results at each scrape (set by a worker; docs/reconciliation.md). */
type ReconciliationSource = () => Promise<{ currency: string; difference: bigint; lastBalancedAt: Date | null }[]>;
let reconciliationSource: ReconciliationSource | undefined;
export function reportReconciliationsFrom(source: ReconciliationSource): void {
  reconciliationSource = source;
}
/** Every process reports what is stored, not what it last did itself: a fixed break clears on every worker. */
async function readReconciliations(set: (row: { currency: string; difference: bigint; lastBalancedAt: Date | null }) => void) {
  if (!reconciliationSource) return;
  try {
    for (const row of await reconciliationSource()) set(row);
  } catch {
    // PostgreSQL away: the last values stand; the scrape itself never fails for it.
  }
}
export const reconciliationDifference = new Gauge({
  name: 'custody_reconciliation_difference_minor',
  help: "The custody account's newest reconciled statement: the bank's closing balance less the ledger's, minor units (docs/reconciliation.md; alert on any)",
  labelNames: ['currency'] as const,
  registers: [registry],
  async collect() {
    await readReconciliations((r) => this.set({ currency: r.currency }, Number(r.difference)));
  },
});
export const reconciliationLastBalanced = new Gauge({
  name: 'custody_reconciliation_last_balanced_timestamp_seconds',
  help: 'When a statement of the custody account was last reconciled balanced (Unix seconds, 0 never; alert when older than 26 hours)',
  labelNames: ['currency'] as const,
  registers: [registry],
  async collect() {
    await readReconciliations((r) =>
      this.set({ currency: r.currency }, r.lastBalancedAt ? Math.floor(r.lastBalancedAt.getTime() / 1000) : 0),
    );
  },
});
export const webhookDeliveries = new Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts by outcome (succeeded, failed, skipped, refused)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});
export const webhookDuration = new Histogram({
  name: 'webhook_delivery_duration_seconds',
  help: 'Webhook delivery attempt latency by outcome',
  labelNames: ['outcome'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

let coreMetricsUrl: string | undefined;

/** Where this process's Temporal Core exports its worker metrics (set when the runtime is installed). */
export function setCoreMetricsUrl(url: string): void {
  coreMetricsUrl = url;
}

/** Where this process's Temporal Core exports its metrics, once a worker's runtime is installed here. */
export const coreMetricsAddress = (): string | undefined => coreMetricsUrl;

/** This process's metrics, plus the Temporal worker's own when a worker runs here. */
async function renderMetrics(): Promise<string> {
  const own = await registry.metrics();
  if (!coreMetricsUrl) return own;
  try {
    const core = await fetch(coreMetricsUrl, { signal: AbortSignal.timeout(2000) });
    return `${own}\n${await core.text()}`;
  } catch (err) {
    return `${own}\n# temporal worker metrics unavailable: ${(err as Error).message}\n`;
  }
}

/**
 * The scrape target of an API process (and of `npm start`, whose worker shares the registry):
 * /metrics and /healthz on API_METRICS_PORT, a port kept off the public network.
 */
export function metricsServer(): http.Server {
  return http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/metrics') {
      renderMetrics().then(
        (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    } else res.writeHead(req.url === '/healthz' ? 200 : 404).end();
  });
}
