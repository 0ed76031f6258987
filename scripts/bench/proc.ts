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

/**
 * The dev server's pid: given by the stack when it spawned the CLI; otherwise (the SDK's own
 * download) the child of this process whose command name starts with "temporal".
 */
export function findDevServerPid(known?: number): number | undefined {
  if (known) return known;
  try {
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && name.startsWith('temporal')) return Number(entry);
    }
  } catch {
    // no /proc
  }
  return undefined;
}

/** Peak RSS of each watched process while a phase runs, sampled every `everyMs`. */
export class MemoryWatch {
  private readonly peak = new Map<string, number>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly pids: Record<string, number | 'self' | undefined>) {}

  start(everyMs = 500): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
    return this;
  }

  private sample(): void {
    for (const [name, pid] of Object.entries(this.pids)) {
      if (pid === undefined) continue;
      const rss = sampleProc(pid).rssMb;
      if (rss !== undefined) this.peak.set(name, Math.max(rss, this.peak.get(name) ?? 0));
    }
  }

  /** Stop; the peak RSS (MB) of each process. */
  stop(): Record<string, number> {
    clearInterval(this.timer);
    this.sample();
    return Object.fromEntries(this.peak);
  }

  cpuMs(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, pid] of Object.entries(this.pids)) {
      const cpu = pid === undefined ? undefined : sampleProc(pid).cpuMs;
      if (cpu !== undefined) out[name] = cpu;
    }
    return out;
  }
}
