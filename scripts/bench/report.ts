/** The results as Markdown tables (stdout and docs/benchmarks.md) and as an SVG chart. */
import fs from 'node:fs';
import path from 'node:path';
import {
  type BenchResult,
  type LevelResult,
  type System,
  STAGED_MILESTONES,
  SYSTEMS,
  SYSTEM_CODE,
  SYSTEM_LABEL,
  errorCount,
} from './results';
import { type Percentiles, fmt } from './stats';

const ms = (x: number | undefined) => fmt(x);
const triple = (p: Percentiles | undefined) => (p && p.n ? `${ms(p.p50)} / ${ms(p.p95)} / ${ms(p.p99)}` : '–');

function byLevel(result: BenchResult): Map<number, Partial<Record<System, LevelResult>>> {
  const out = new Map<number, Partial<Record<System, LevelResult>>>();
  for (const l of result.levels) {
    const row = out.get(l.concurrency) ?? {};
    row[l.system] = l;
    out.set(l.concurrency, row);
  }
  return new Map([...out].sort(([a], [b]) => a - b));
}

function errorsCell(l: LevelResult | undefined): string {
  if (!l) return '–';
  const n = errorCount(l);
  if (n === 0) return '0';
  const parts = Object.entries(l.errors).map(([kind, e]) => `${e.count} ${kind}`);
  if (l.webhooks?.missing) parts.push(`${l.webhooks.missing} missing deliveries`);
  if (l.webhooks?.badSignatures) parts.push(`${l.webhooks.badSignatures} bad signatures`);
  if (l.webhooks?.unreadable) parts.push(`${l.webhooks.unreadable} unreadable deliveries`);
  return `**${n}** (${parts.join(', ')})`;
}

const table = (head: string[], rows: string[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

const ratio = (a: LevelResult | undefined, b: LevelResult | undefined) =>
  a && b && b.throughput ? `**${(a.throughput / b.throughput).toFixed(2)}**` : '–';

/** Processes in the CPU and memory tables, in this order (absent ones show –). */
const PROCESSES = ['api', 'worker', 'temporal', 'postgres', 'client'] as const;

export function markdownTables(result: BenchResult): string {
  const levels = byLevel(result);
  const out: string[] = [];
  const dev: System[] = ['service', 'engine', 'engineWebhooks', 'floorApi', 'floorSplit', 'plain'];
  out.push(
    table(
      [
        'clients',
        ...dev.map((s) => `${SYSTEM_CODE[s]} lifecycles/s`),
        '**A / B2**',
        '**A / B3**',
        '**A / B4**',
        '**A / B**',
        'A / C',
        `request p99 ms ${dev.map((s) => SYSTEM_CODE[s]).join(' / ')}`,
        `errors ${dev.map((s) => SYSTEM_CODE[s]).join(' / ')}`,
      ],
      [...levels].map(([c, r]) => [
        String(c),
        ...dev.map((s) => fmt(r[s]?.throughput)),
        ratio(r.service, r.engineWebhooks),
        ratio(r.service, r.floorApi),
        ratio(r.service, r.floorSplit),
        ratio(r.service, r.engine),
        ratio(r.service, r.plain).replace(/\*/g, ''),
        dev.map((s) => ms(r[s]?.request.p99)).join(' / '),
        dev.map((s) => errorsCell(r[s])).join(' / '),
      ]),
    ),
  );
  if ([...levels.values()].some((r) => r.staged)) {
    out.push('');
    out.push(
      `A10, payments of ${STAGED_MILESTONES} milestones (one deposit, then each approved and released: ${2 * STAGED_MILESTONES + 2} requests), beside A (4 requests): lifecycles/s, CPU per lifecycle without the client (ms), and per milestone:`,
    );
    out.push('');
    const serverCpu = (l: LevelResult | undefined) =>
      l ? PROCESSES.filter((p) => p !== 'client').reduce((sum, p) => sum + (l.cpuMsPerLifecycle[p] ?? 0), 0) : undefined;
    out.push(
      table(
        ['clients', 'A lifecycles/s', 'A10 lifecycles/s', 'A10 / A', 'CPU A', 'CPU A10', 'CPU A10 per milestone', 'errors A10'],
        [...levels].map(([c, r]) => {
          const [a, staged] = [serverCpu(r.service), serverCpu(r.staged)];
          return [
            String(c),
            fmt(r.service?.throughput),
            fmt(r.staged?.throughput),
            ratio(r.staged, r.service).replace(/\*/g, ''),
            fmt(a),
            fmt(staged),
            fmt(staged === undefined ? undefined : staged / STAGED_MILESTONES),
            errorsCell(r.staged),
          ];
        }),
      ),
    );
  }
  out.push('');
  out.push(
    "A, B2, B3 and B4 per step (p50 / p95 / p99 ms), the three transitions' requests together (p99), webhook lag from a transition's answer to its delivery's arrival, deliveries (duplicates):",
  );
  out.push('');
  const withWebhooks: System[] = ['service', 'staged', 'cluster', 'engineWebhooks', 'floorApi', 'floorSplit'];
  out.push(
    table(
      [
        'clients',
        'system',
        'create / start',
        'deposit',
        'approve',
        'release',
        'transition p99',
        'webhook lag p50 / p99 ms',
        'deliveries (dup.)',
      ],
      [...levels].flatMap(([c, r]) =>
        withWebhooks.flatMap((sys) => {
          const l = r[sys];
          if (!l) return [];
          const w = l.webhooks;
          return [
            [
              String(c),
              SYSTEM_CODE[sys],
              triple(l.steps.create ?? l.steps.start),
              triple(l.steps.deposit),
              triple(l.steps.approve),
              triple(l.steps.release),
              ms(l.transition?.p99),
              w ? `${ms(w.lag.p50)} / ${ms(w.lag.p99)}` : '–',
              w ? `${w.delivered}/${w.expected} (${w.duplicates})` : '–',
            ],
          ];
        }),
      ),
    ),
  );
  out.push('');
  out.push(
    "CPU per lifecycle (ms) and peak RSS (MB) by process: api and worker are the service's (for B, B2, B3 and B4 the worker is the engine's; B3's and B4's api is their node:http front), temporal the dev server or the cluster's Temporal server, postgres every PostgreSQL server process, client this process (clients, webhook receiver, and for C the plain server):",
  );
  out.push('');
  out.push(
    table(
      [
        'clients',
        'system',
        ...PROCESSES.map((p) => `CPU ${p}`),
        'CPU without client',
        ...PROCESSES.filter((p) => p !== 'postgres').map((p) => `RSS ${p}`),
      ],
      [...levels].flatMap(([c, r]) =>
        SYSTEMS.flatMap((sys) => {
          const l = r[sys];
          if (!l) return [];
          const cpu = l.cpuMsPerLifecycle;
          const server = PROCESSES.filter((p) => p !== 'client').reduce((sum, p) => sum + (cpu[p] ?? 0), 0);
          return [
            [
              String(c),
              SYSTEM_CODE[sys],
              ...PROCESSES.map((p) => fmt(cpu[p])),
              fmt(server),
              ...PROCESSES.filter((p) => p !== 'postgres').map((p) => fmt(l.rssMb[p])),
            ],
          ];
        }),
      ),
    ),
  );
  const written = result.levels.filter((l) => l.pgWrites);
  if (written.length) {
    const tables = [...new Set(written.flatMap((l) => Object.keys(l.pgWrites!.inserted)))].sort();
    out.push('');
    out.push(
      "PostgreSQL writes per lifecycle of A: WAL bytes (the whole server's, Temporal's own tables included on the cluster) and rows inserted per table of the service's database (updated rows in brackets):",
    );
    out.push('');
    out.push(
      table(
        ['clients', 'system', 'WAL bytes', 'rows inserted', ...tables],
        written.map((l) => {
          const w = l.pgWrites!;
          const total = Object.values(w.inserted).reduce((a, b) => a + b, 0);
          return [
            String(l.concurrency),
            SYSTEM_CODE[l.system],
            fmt(w.walBytes),
            fmt(total),
            ...tables.map((t) => `${fmt(w.inserted[t] ?? 0)}${w.updated[t] ? ` (${fmt(w.updated[t])})` : ''}`),
          ];
        }),
      ),
    );
  }
  if (result.levels.some((l) => l.system === 'cluster')) {
    out.push('');
    out.push('A on `npm run stack:cluster` beside A on the dev server:');
    out.push('');
    out.push(
      table(
        [
          'clients',
          'A dev lifecycles/s',
          'A cluster lifecycles/s',
          'cluster / dev',
          'request p99 ms dev / cluster',
          'errors dev / cluster',
        ],
        [...levels].map(([c, r]) => [
          String(c),
          fmt(r.service?.throughput),
          fmt(r.cluster?.throughput),
          ratio(r.cluster, r.service).replace(/\*/g, ''),
          `${ms(r.service?.request.p99)} / ${ms(r.cluster?.request.p99)}`,
          `${errorsCell(r.service)} / ${errorsCell(r.cluster)}`,
        ]),
      ),
    );
  }
  out.push('');
  out.push('B and C per step (p50 / p95 / p99 ms):');
  out.push('');
  out.push(
    table(
      ['clients', 'B start', 'B update 1', 'B update 2', 'B update 3', 'C create', 'C deposit', 'C approve', 'C release'],
      [...levels].map(([c, r]) => [
        String(c),
        triple(r.engine?.steps.start),
        triple(r.engine?.steps.deposit),
        triple(r.engine?.steps.approve),
        triple(r.engine?.steps.release),
        triple(r.plain?.steps.create),
        triple(r.plain?.steps.deposit),
        triple(r.plain?.steps.approve),
        triple(r.plain?.steps.release),
      ]),
    ),
  );
  const shapes = Object.entries(result.histories ?? {}).filter(([, h]) => h);
  if (shapes.length) {
    out.push('');
    out.push(
      `Temporal history of one lifecycle: ${shapes
        .map(
          ([s, h]) =>
            `${SYSTEM_CODE[s as System]} ${h.events} events, ${h.workflowTasks} workflow tasks (${h.workflowTaskTimeouts} timed out), ${h.activities} activities, ${h.updates} updates`,
        )
        .join('; ')}.`,
    );
  }
  const reads = result.reads;
  if (reads) {
    out.push('');
    out.push(
      `Reads with ${reads.openPayments} open payments (created in ${fmt(reads.createS)} s, ${fmt(reads.openPayments / reads.createS)}/s` +
        `${reads.createFailed ? `, **${reads.createFailed} creates failed**` : ''}${reads.webhooksMissing ? `, **${reads.webhooksMissing} created deliveries missing**` : ''}), ` +
        `${reads.concurrency} clients; peak RSS api ${fmt(reads.rssMb.api)} MB, worker ${fmt(reads.rssMb.worker)} MB, dev server ${fmt(reads.rssMb.temporal)} MB:`,
    );
    out.push('');
    out.push(
      table(
        ['endpoint', 'requests/s', 'p50 ms', 'p95 ms', 'p99 ms', 'errors'],
        Object.entries(reads.endpoints).map(([name, e]) => [
          name,
          fmt(e.throughput),
          ms(e.p50),
          ms(e.p95),
          ms(e.p99),
          e.failed ? `**${e.failed}**` : '0',
        ]),
      ),
    );
    const kinds = Object.entries(reads.errors);
    if (kinds.length)
      out.push('', `Read-phase errors: ${kinds.map(([kind, e]) => `${e.count} × ${kind} (${e.example.slice(0, 120)})`).join('; ')}.`);
  }
  return out.join('\n');
}

/** What goes between the docs markers: when, where, how, the tables and the chart. */
export function docsSection(result: BenchResult, svgRelative: string): string {
  const m = result.machine;
  return [
    `Measured ${result.startedAt.slice(0, 16).replace('T', ' ')} UTC on commit \`${result.commit}\`, ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGb} GB, Node ${m.node}, ${m.postgres ?? 'PostgreSQL ?'}, Temporal CLI ${m.temporalCli ?? '?'};`,
    `\`npm run bench -- --duration ${result.options.durationS} ${result.options.concurrency.map((c) => `--concurrency ${c}`).join(' ')} --reads ${result.options.reads}${result.options.systems.includes('cluster') ? ' --stack cluster' : ''}\`.`,
    '',
    markdownTables(result),
    '',
    `Chart: [${svgRelative}](${svgRelative}).`,
  ].join('\n');
}

export const DOCS_START = '<!-- bench:start -->';
export const DOCS_END = '<!-- bench:end -->';

/** Replace the text between the markers; refuses (throws) when the markers are missing. */
export function rewriteDocs(file: string, section: string): void {
  const text = fs.readFileSync(file, 'utf8');
  const start = text.indexOf(DOCS_START);
  const end = text.indexOf(DOCS_END);
  if (start < 0 || end < start) throw new Error(`${file} has no ${DOCS_START} … ${DOCS_END} section`);
  fs.writeFileSync(file, `${text.slice(0, start + DOCS_START.length)}\n${section}\n${text.slice(end)}`);
}

export function relativeTo(fromFile: string, target: string): string {
  return path.relative(path.dirname(fromFile), target).split(path.sep).join('/');
}

// ---- SVG -------------------------------------------------------------------------------------

const COLOR: Record<System, string> = {
  service: '#d62728',
  staged: '#e377c2',
  engine: '#1f77b4',
  engineWebhooks: '#9467bd',
  floorApi: '#8c564b',
  floorSplit: '#bcbd22',
  plain: '#2ca02c',
  cluster: '#ff7f0e',
};
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

interface Panel {
  title: string;
  unit: string;
  value: (l: LevelResult) => number;
}

/** Two log–log panels: lifecycles/s and request p99 against clients, one line per system. */
export function renderSvg(result: BenchResult): string {
  const W = 960;
  const H = 420;
  const panelW = 440;
  const margin = { l: 64, r: 16, t: 80, b: 56 };
  const plotW = panelW - margin.l - margin.r;
  const plotH = H - margin.t - margin.b;
  const clients = [...new Set(result.levels.map((l) => l.concurrency))].sort((a, b) => a - b);
  const lo = Math.log2(clients[0] ?? 1);
  const hi = Math.log2(clients[clients.length - 1] ?? 1);
  const xOf = (c: number) => (hi === lo ? plotW / 2 : ((Math.log2(c) - lo) / (hi - lo)) * plotW);
  const panels: Panel[] = [
    { title: 'Throughput', unit: 'lifecycles/s', value: (l) => l.throughput },
    { title: 'Request latency p99', unit: 'ms', value: (l) => l.request.p99 },
  ];
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
  );
  parts.push(`<rect width="${W}" height="${H}" fill="#fff"/>`);
  parts.push(
    `<text x="${W / 2}" y="18" text-anchor="middle" font-size="14" font-weight="bold">npm run bench — ${esc(result.startedAt.slice(0, 10))}, ${esc(result.commit)}, ${result.machine.cpus} CPUs, ${result.options.durationS} s per level</text>`,
  );
  // Legend
  // Legend: the systems this run measured, three to a row.
  SYSTEMS.filter((s) => result.levels.some((l) => l.system === s)).forEach((s, i) => {
    const x = 60 + (i % 3) * 300;
    const y = 36 + Math.floor(i / 3) * 16;
    parts.push(
      `<line x1="${x}" y1="${y}" x2="${x + 24}" y2="${y}" stroke="${COLOR[s]}" stroke-width="2.5"/><circle cx="${x + 12}" cy="${y}" r="3.5" fill="${COLOR[s]}"/>`,
    );
    parts.push(`<text x="${x + 30}" y="${y + 4}">${esc(SYSTEM_LABEL[s])}</text>`);
  });
  panels.forEach((panel, pi) => {
    const ox = pi * (panelW + 40) + margin.l + 20;
    const oy = margin.t;
    const values = result.levels.map(panel.value).filter((v) => Number.isFinite(v) && v > 0);
    const yLo = Math.floor(Math.log10(Math.min(...values, 1)));
    const yHi = Math.max(yLo + 1, Math.ceil(Math.log10(Math.max(...values, 1))));
    const yOf = (v: number) => plotH - ((Math.log10(v) - yLo) / (yHi - yLo)) * plotH;
    parts.push(`<g transform="translate(${ox},${oy})">`);
    parts.push(
      `<text x="${plotW / 2}" y="-10" text-anchor="middle" font-weight="bold">${esc(panel.title)} (${esc(panel.unit)}, log scale)</text>`,
    );
    // Grid: decades labelled, 2 and 5 faint.
    for (let d = yLo; d <= yHi; d++) {
      for (const k of [1, 2, 5]) {
        const v = k * 10 ** d;
        if (Math.log10(v) > yHi + 1e-9) continue;
        const y = yOf(v);
        parts.push(`<line x1="0" y1="${y.toFixed(1)}" x2="${plotW}" y2="${y.toFixed(1)}" stroke="${k === 1 ? '#ccc' : '#eee'}"/>`);
        parts.push(
          `<text x="-6" y="${(y + 4).toFixed(1)}" text-anchor="end" fill="${k === 1 ? '#333' : '#999'}">${v >= 1 ? v : v.toPrecision(1)}</text>`,
        );
      }
    }
    for (const c of clients) {
      const x = xOf(c);
      parts.push(`<line x1="${x.toFixed(1)}" y1="0" x2="${x.toFixed(1)}" y2="${plotH}" stroke="#eee"/>`);
      parts.push(`<text x="${x.toFixed(1)}" y="${plotH + 18}" text-anchor="middle">${c}</text>`);
    }
    parts.push(`<rect x="0" y="0" width="${plotW}" height="${plotH}" fill="none" stroke="#888"/>`);
    parts.push(`<text x="${plotW / 2}" y="${plotH + 40}" text-anchor="middle">closed-loop clients</text>`);
    for (const s of SYSTEMS) {
      const points = result.levels
        .filter((l) => l.system === s && Number.isFinite(panel.value(l)) && panel.value(l) > 0)
        .sort((a, b) => a.concurrency - b.concurrency)
        .map((l) => ({ x: xOf(l.concurrency), y: yOf(panel.value(l)), l }));
      if (!points.length) continue;
      parts.push(
        `<polyline fill="none" stroke="${COLOR[s]}" stroke-width="2.5" points="${points.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ')}"/>`,
      );
      for (const p of points) {
        const v = panel.value(p.l);
        parts.push(
          `<circle cx="${p.x.toFixed(1)}" cy="${p.y.toFixed(1)}" r="4" fill="${COLOR[s]}"><title>${esc(`${SYSTEM_LABEL[s]}, ${p.l.concurrency} clients: ${fmt(v)} ${panel.unit}`)}</title></circle>`,
        );
        parts.push(`<text x="${(p.x + 6).toFixed(1)}" y="${(p.y - 6).toFixed(1)}" font-size="10" fill="${COLOR[s]}">${fmt(v)}</text>`);
      }
    }
    parts.push('</g>');
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}
