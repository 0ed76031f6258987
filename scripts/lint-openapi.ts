/**
 * Redocly CLI's lint (recommended ruleset, redocly.yaml) over docs/openapi.json, failing on any
 * problem: Redocly itself exits 0 on warnings, and the contract allows none. `npm run lint:openapi`.
 */
import { spawnSync } from 'node:child_process';

const run = spawnSync(process.execPath, [require.resolve('@redocly/cli/bin/cli.js'), 'lint', 'docs/openapi.json', '--format=json'], {
  encoding: 'utf8',
  // No telemetry and no update check: CI runs offline.
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
});
let report: {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; message: string; location?: { pointer?: string }[] }[];
};
try {
  report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{')));
} catch {
  console.error(run.stdout, run.stderr);
  process.exit(1);
}
for (const p of report.problems) console.error(`${p.ruleId}: ${p.message} (${p.location?.[0]?.pointer ?? ''})`);
console.log(`Redocly lint (recommended): ${report.totals.errors} errors, ${report.totals.warnings} warnings`);
if (report.totals.errors > 0 || report.totals.warnings > 0) process.exit(1);
