/** Command-line flags of `npm run bench`. */
import path from 'node:path';
import { type System, SYSTEM_CODE, SYSTEMS } from './results';

export interface BenchOptions {
  /** Seconds per concurrency level (and per read endpoint). */
  durationS: number;
  concurrency: number[];
  /** The systems to run, in the order of SYSTEMS; `cluster` only with `--stack cluster`. */
  systems: System[];
  /** Open payments created before the read phase; 0 skips it. */
  reads: number;
  /** Clients of the read phase. */
  readConcurrency: number;
  json?: string;
  svg: string;
  /** Rewrite the results between the markers of docs/benchmarks.md. */
  writeDocs: boolean;
  docs: string;
}

const ROOT = path.resolve(__dirname, '../..');

export const USAGE = `usage: npm run bench -- [options]
  --duration <s>          seconds per concurrency level (default 20)
  --concurrency <n>       closed-loop clients; repeatable (default 1, 8, 32)
  --systems <list>        of A, A10, B, B2, B3, B4, C, comma-separated (default all but A10, A with 10 milestones per payment,
                          and B4, B3 split in two activities)
  --stack cluster         also run A against npm run stack:cluster (two APIs, two workers, Temporal on PostgreSQL)
  --reads <n>             open payments before the read phase (default 5000; 0 skips it)
  --read-concurrency <n>  clients of the read phase (default 8)
  --json <file>           write every number measured as JSON
  --svg <file>            the chart (default docs/benchmarks.svg)
  --write-docs            replace the "Latest results" section of docs/benchmarks.md
  --docs <file>           the page --write-docs rewrites (default docs/benchmarks.md)`;

export function parseArgs(argv: string[]): BenchOptions {
  const opts: BenchOptions = {
    durationS: 20,
    concurrency: [],
    systems: [],
    reads: 5000,
    readConcurrency: 8,
    svg: path.join(ROOT, 'docs/benchmarks.svg'),
    writeDocs: false,
    docs: path.join(ROOT, 'docs/benchmarks.md'),
  };
  const positive = (flag: string, text: string | undefined, min = 1): number => {
    const n = Number(text);
    if (text === undefined || !Number.isInteger(n) || n < min) throw new Error(`${flag} needs an integer ≥ ${min}\n${USAGE}`);
    return n;
  };
  const value = (flag: string, text: string | undefined): string => {
    if (!text) throw new Error(`${flag} needs a value\n${USAGE}`);
    return text;
  };
  let cluster = false;
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const next = () => (inline !== undefined ? inline : argv[++i]);
    switch (flag) {
      case '--duration':
        opts.durationS = positive(flag, next());
        break;
      case '--concurrency':
        opts.concurrency.push(positive(flag, next()));
        break;
      case '--systems':
        for (const code of value(flag, next()).split(',')) {
          const system = SYSTEMS.find((s) => SYSTEM_CODE[s] === code.trim().toUpperCase() && s !== 'cluster');
          if (!system) throw new Error(`--systems takes A, A10, B, B2, B3, B4 and C, not "${code}"\n${USAGE}`);
          opts.systems.push(system);
        }
        break;
      case '--stack': {
        const stack = value(flag, next());
        if (stack === 'cluster') cluster = true;
        else if (stack !== 'dev') throw new Error(`--stack takes dev or cluster, not "${stack}"\n${USAGE}`);
        break;
      }
      case '--reads':
        opts.reads = positive(flag, next(), 0);
        break;
      case '--read-concurrency':
        opts.readConcurrency = positive(flag, next());
        break;
      case '--json':
        opts.json = path.resolve(value(flag, next()));
        break;
      case '--svg':
        opts.svg = path.resolve(value(flag, next()));
        break;
      case '--write-docs':
        opts.writeDocs = true;
        break;
      case '--docs':
        opts.docs = path.resolve(value(flag, next()));
        break;
      case '-h':
      case '--help':
        console.log(USAGE);
        process.exit(0);
        break;
      default:
        throw new Error(`unknown option ${argv[i]}\n${USAGE}`);
    }
  }
  if (opts.concurrency.length === 0) opts.concurrency = [1, 8, 32];
  const chosen = new Set(
    opts.systems.length ? opts.systems : SYSTEMS.filter((s) => s !== 'cluster' && s !== 'staged' && s !== 'floorSplit'),
  );
  if (cluster) chosen.add('cluster');
  opts.systems = SYSTEMS.filter((s) => chosen.has(s));
  opts.concurrency = [...new Set(opts.concurrency)].sort((a, b) => a - b);
  return opts;
}
