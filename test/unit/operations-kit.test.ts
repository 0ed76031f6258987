/** The dashboard and the alert rules in deploy/ name only metrics the service exports. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { registry } from '../../src/platform/lib/metrics';

const ROOT = path.resolve(__dirname, '../..');
/** Not ours: Prometheus's own. */
const EXTERNAL = new Set(['up']);
const SUFFIXES = ['_bucket', '_sum', '_count'];
const FUNCTIONS = new Set(['rate', 'increase', 'sum', 'by', 'histogram_quantile', 'clamp_min', 'and', 'or', 'le', 'on', 'without']);

/** Metric names in a PromQL expression: identifiers not followed by "(", not labels, not functions. */
function metricNames(expr: string): string[] {
  const withoutLabels = expr.replace(/\{[^}]*\}/g, '').replace(/by \([^)]*\)/g, '');
  return [...withoutLabels.matchAll(/\b([a-z_][a-z0-9_]*)\b(?!\s*\()/g)]
    .map((m) => m[1])
    .filter((n) => (!FUNCTIONS.has(n) && /_/.test(n)) || n === 'up');
}

const exported = new Set(registry.getMetricsAsArray().map((m) => m.name));
const known = (name: string) =>
  EXTERNAL.has(name) || exported.has(name) || SUFFIXES.some((s) => name.endsWith(s) && exported.has(name.slice(0, -s.length)));

describe('operations kit', () => {
  const alerts = parse(fs.readFileSync(path.join(ROOT, 'deploy/prometheus/alerts.yml'), 'utf8')) as {
    groups: { rules: { alert: string; expr: string }[] }[];
  };
  const dashboard = JSON.parse(fs.readFileSync(path.join(ROOT, 'deploy/grafana/payment-custody.json'), 'utf8')) as {
    panels: { title: string; targets: { expr: string }[] }[];
  };

  it('every alert rule names only exported metrics', () => {
    const rules = alerts.groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.alert)).toEqual(
      expect.arrayContaining(['PaymentProjectionFailed', 'WebhookDeliveriesFailing', 'ApiLatencyHigh', 'ApiUnavailable']),
    );
    for (const rule of rules) {
      const names = metricNames(rule.expr);
      expect(names.length, rule.alert).toBeGreaterThan(0);
      expect(
        names.filter((n) => !known(n)),
        rule.alert,
      ).toEqual([]);
    }
  });

  it('every dashboard panel names only exported metrics', () => {
    for (const panel of dashboard.panels) {
      for (const target of panel.targets) {
        const names = metricNames(target.expr);
        expect(names.length, panel.title).toBeGreaterThan(0);
        expect(
          names.filter((n) => !known(n)),
          panel.title,
        ).toEqual([]);
      }
    }
  });

  it('the check itself refuses a metric the service does not export', () => {
    expect(metricNames('rate(payment_refunds_total[5m])').filter((n) => !known(n))).toEqual(['payment_refunds_total']);
  });
});
