/** The shape of one run's numbers (also what `--json` writes). */
import type { PgWrites } from './pgStats';
import type { Percentiles } from './stats';

export type System = 'service' | 'staged' | 'engine' | 'engineWebhooks' | 'floorApi' | 'floorSplit' | 'plain' | 'cluster';

export const SYSTEMS: System[] = ['service', 'staged', 'engine', 'engineWebhooks', 'floorApi', 'floorSplit', 'plain', 'cluster'];

/** How many milestones each payment of A10 has. */
export const STAGED_MILESTONES = 10;

/** The letters the tables and `--systems` use. */
export const SYSTEM_CODE: Record<System, string> = {
  service: 'A',
  staged: 'A10',
  engine: 'B',
  engineWebhooks: 'B2',
  floorApi: 'B3',
  floorSplit: 'B4',
  plain: 'C',
  cluster: 'A-cluster',
};

export const SYSTEM_LABEL: Record<System, string> = {
  service: 'A: this service (HTTP API), dev server',
  staged: 'A10: A with 10 milestones per payment (deposit once, approve and release each)',
  engine: 'B: bare Temporal (start + 3 Updates)',
  engineWebhooks: 'B2: bare Temporal + one signed POST activity per transition',
  floorApi: 'B3: B2 + node:http API (key lookup) + read-model row',
  floorSplit: 'B4: B3 with the projection and the POST as two activities, the POST on a webhooks task queue',
  plain: 'C: plain node:http + pg',
  cluster: 'A on stack:cluster (Temporal server on PostgreSQL, 2 APIs, 2 workers)',
};

export interface Failures {
  [kind: string]: { count: number; example: string };
}

export interface WebhookResult {
  expected: number;
  delivered: number;
  missing: number;
  duplicates: number;
  badSignatures: number;
  unreadable: number;
  /** From the transition's HTTP answer to its delivery's arrival, ms. */
  lag: Percentiles;
}

export interface LevelResult {
  system: System;
  concurrency: number;
  lifecycles: number;
  failed: number;
  elapsedS: number;
  throughput: number;
  /** Per step ("create" / "start", "deposit", "approve", "release"), ms. */
  steps: Record<string, Percentiles>;
  /** All four steps' requests together, ms. */
  request: Percentiles;
  /** The three transitions' requests together (deposit, approve, release), ms. */
  transition?: Percentiles;
  lifecycle: Percentiles;
  errors: Failures;
  webhooks?: WebhookResult;
  /** Peak resident memory during the level, MB, by process (client, api, worker, temporal); B3's api is its front. */
  rssMb: Record<string, number>;
  /**
   * CPU time per completed lifecycle, ms, by process: client (this process: the closed-loop clients
   * and the webhook receiver; for C also the plain server), api (for B3 its node:http front), worker
   * (for B, B2 and B3 the engine's), temporal (the dev server or the cluster's Temporal server),
   * postgres (every PostgreSQL server process).
   */
  cpuMsPerLifecycle: Record<string, number>;
  /** For A: WAL bytes and rows written per lifecycle (./pgStats.ts). */
  pgWrites?: PgWrites;
}

export interface ReadEndpointResult extends Percentiles {
  throughput: number;
  failed: number;
}

export interface ReadsResult {
  openPayments: number;
  createS: number;
  createFailed: number;
  webhooksMissing: number;
  concurrency: number;
  endpoints: Record<string, ReadEndpointResult>;
  errors: Failures;
  rssMb: Record<string, number>;
}

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGb: number;
  node: string;
  os: string;
  postgres?: string;
  temporalCli?: string;
}

/** The Temporal history of one completed lifecycle: what the engine did for it. */
export interface HistoryShape {
  workflowId: string;
  events: number;
  workflowTasks: number;
  activities: number;
  updates: number;
  /** Workflow tasks the server timed out (the worker answered too late): work done twice. */
  workflowTaskTimeouts: number;
}

export interface BenchResult {
  startedAt: string;
  commit: string;
  machine: Machine;
  options: { durationS: number; concurrency: number[]; reads: number; readConcurrency: number; systems: System[] };
  levels: LevelResult[];
  reads?: ReadsResult;
  histories?: Partial<Record<System, HistoryShape>>;
}

/** Every failure of a level: non-2xx and thrown calls, bad signatures, deliveries that never came. */
export function errorCount(level: LevelResult): number {
  return level.failed + (level.webhooks ? level.webhooks.missing + level.webhooks.badSignatures + level.webhooks.unreadable : 0);
}
