/**
 * One progress line on stderr: rewritten in place on a terminal; on a pipe or file, a plain line
 * at most every few seconds (and whenever the phase changes), so a log stays readable.
 */
export class Progress {
  private readonly tty = Boolean(process.stderr.isTTY);
  private lastPlain = 0;
  private lastPhase = '';
  private shown = false;

  constructor(private readonly plainEveryMs = 5000) {}

  update(phase: string, detail = ''): void {
    const text = detail ? `${phase} — ${detail}` : phase;
    if (this.tty) {
      const width = process.stderr.columns || 120;
      process.stderr.write(`\r\x1b[K${text.slice(0, width - 1)}`);
      this.shown = true;
      return;
    }
    const now = Date.now();
    if (phase !== this.lastPhase || now - this.lastPlain >= this.plainEveryMs) {
      process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${text}\n`);
      this.lastPlain = now;
      this.lastPhase = phase;
    }
  }

  /** A line that stays (a finished phase), below which the progress line continues. */
  log(text: string): void {
    if (this.tty && this.shown) process.stderr.write('\r\x1b[K');
    process.stderr.write(`${text}\n`);
    this.shown = false;
  }

  done(): void {
    if (this.tty && this.shown) process.stderr.write('\r\x1b[K');
    this.shown = false;
  }
}
