/**
 * A payment's durable timers in its workflow (docs/concepts.md, "Timers"): one Temporal timer per
 * pending timer (the deposit deadline, each approved milestone's auto-release), each in a
 * cancellation scope of its own, so that one whose milestone moves on is cancelled alone.
 */
import { CancellationScope, sleep } from '@temporalio/workflow';

/** A timer to keep armed: its identity (which timer, when due), its delay from now and its name in the Temporal UI. */
export interface WantedTimer {
  key: string;
  delayMs: number;
  summary: string;
}

export class DurableTimers {
  private readonly armed = new Map<string, CancellationScope>();
  /** Whether a timer fired since the last `takeFired()`. */
  fired = false;

  /** Cancel the armed timers no longer wanted (every one when `rearm`: a test clock moved), then arm the missing ones. */
  sync(wanted: WantedTimer[], rearm: boolean): void {
    const keys = new Set(wanted.map((t) => t.key));
    for (const [key, scope] of this.armed) {
      if (keys.has(key) && !rearm) continue;
      scope.cancel();
      this.armed.delete(key);
    }
    for (const { key, delayMs, summary } of wanted) {
      if (this.armed.has(key)) continue;
      const scope = new CancellationScope();
      this.armed.set(key, scope);
      scope
        .run(() => sleep(delayMs, { summary }))
        .then(
          () => {
            this.armed.delete(key);
            this.fired = true;
          },
          () => undefined, // cancelled: its milestone moved on, or the clock did
        );
    }
  }

  /** Whether a timer fired, resetting it. */
  takeFired(): boolean {
    const fired = this.fired;
    this.fired = false;
    return fired;
  }

  cancelAll(): void {
    this.sync([], true);
  }
}
