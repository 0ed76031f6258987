/** Resident memory and CPU time of a process, from /proc (Linux); undefined elsewhere. */
import fs from 'node:fs';

export interface ProcSample {
  rssMb?: number;
  /** user + system CPU time so far, ms */
  cpuMs?: number;
}

const CLOCK_TICKS = 100; // USER_HZ on Linux

export function sampleProc(pid: number | 'self'): ProcSample {
  const out: ProcSample = {};
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = /^VmRSS:\s+(\d+) kB/m.exec(status);
    if (rss) out.rssMb = Number(rss[1]) / 1024;
    // The command name may hold spaces and parentheses: fields are counted after the last ')'.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS; // utime, stime
  } catch {
    // not Linux, or the process is gone
  }
  return out;
}

/** Every process on this machine, with its command name and parent (empty without /proc). */
function processes(): { pid: number; name: string; ppid: number }[] {
  const out: { pid: number; name: string; ppid: number }[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return out; // no /proc
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      out.push({ pid: Number(entry), name, ppid });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * The dev server's pid: given by the stack when it spawned the CLI; otherwise (the SDK's own
 * download) the child of this process whose command name starts with "temporal".
 */
export function findDevServerPid(known?: number): number | undefined {
  if (known) return known;
  return processes().find((p) => p.ppid === process.pid && p.name.startsWith('temporal'))?.pid;
}

/**
 * What one row of the CPU and memory tables stands for: this process, a set of pids (a service's
 * replicas), or every PostgreSQL server process (the postmaster and its backends, found anew at each
 * sample since backends come and go; CPU of a backend that exited between samples is not counted).
 */
export type ProcSet = 'self' | 'postgres' | number[];

function pidsOf(set: ProcSet): (number | 'self')[] {
  if (set === 'self') return ['self'];
  if (set !== 'postgres') return set;
  return processes()
    .filter((p) => p.name === 'postgres')
    .map((p) => p.pid);
}

/** Peak RSS (summed over a set's pids) of each watched set while a phase runs, sampled every `everyMs`. */
export class MemoryWatch {
  private readonly peak = new Map<string, number>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly sets: Record<string, ProcSet | undefined>) {}

  start(everyMs = 500): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
    return this;
  }

  private sample(): void {
    for (const [name, set] of Object.entries(this.sets)) {
      if (set === undefined || set === 'postgres') continue; // shared buffers would count once per backend
      const samples = pidsOf(set).map((pid) => sampleProc(pid).rssMb);
      if (samples.some((s) => s === undefined)) continue;
      const rss = samples.reduce((a, b) => a! + b!, 0)!;
      this.peak.set(name, Math.max(rss, this.peak.get(name) ?? 0));
    }
  }

  /** Stop; the peak RSS (MB) of each set. */
  stop(): Record<string, number> {
    clearInterval(this.timer);
    this.sample();
    return Object.fromEntries(this.peak);
  }

  /** CPU time so far (ms) of each pid of each set. */
  cpuMs(): CpuSnapshot {
    const out: CpuSnapshot = {};
    for (const [name, set] of Object.entries(this.sets)) {
      if (set === undefined) continue;
      const byPid = new Map<number | 'self', number>();
      for (const pid of pidsOf(set)) {
        const cpu = sampleProc(pid).cpuMs;
        if (cpu !== undefined) byPid.set(pid, cpu);
      }
      out[name] = byPid;
    }
    return out;
  }
}

/** Per set, each pid's CPU time so far (ms). */
export type CpuSnapshot = Record<string, Map<number | 'self', number>>;

/**
 * CPU (ms) each set used between two snapshots: a pid seen only in `after` started meanwhile and
 * counts whole; a pid gone by `after` (a PostgreSQL backend that exited) is not counted.
 */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, pids] of Object.entries(after)) {
    let total = 0;
    for (const [pid, cpu] of pids) total += cpu - (before[name]?.get(pid) ?? 0);
    out[name] = total;
  }
  return out;
}
