/**
 * A moment's wait for a full endpoint inside the attempt (docs/webhooks.md, "No tenant slows
 * another"): a burst a little larger than WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT is sent as soon as an
 * attempt ends, without returning to the workflow. Only an endpoint that stays full sends its
 * deliveries to the durable line.
 */

/** How often a waiting attempt looks again, for leases freed by another worker process. */
const LOOK_AGAIN_MS = 250;

interface Waiter {
  wake: () => void;
}

/** The attempts of this worker process waiting a moment for an endpoint, per configuration, in order of arrival. */
export class EndpointTurns {
  private readonly waiters = new Map<string, Waiter[]>();

  /** How many attempts of this process wait for the configuration's endpoint. */
  waiting(webhookId: string): number {
    return this.waiters.get(webhookId)?.length ?? 0;
  }

  /**
   * Tries `take` until it succeeds or `waitMs` (WEBHOOK_ENDPOINT_WAIT) have passed: again when an attempt of this
   * process to the endpoint ends and this waiter is the longest waiting, and every LOOK_AGAIN_MS.
   * Waits only while fewer than `limit` attempts of this process wait already: beyond a momentary
   * burst, the durable line.
   */
  async wait(webhookId: string, limit: number, take: () => Promise<boolean>, waitMs: number): Promise<boolean> {
    if (this.waiting(webhookId) >= limit) return false;
    const deadline = Date.now() + waitMs;
    const queue = this.waiters.get(webhookId) ?? [];
    this.waiters.set(webhookId, queue);
    const me: Waiter = { wake: () => undefined };
    queue.push(me);
    try {
      for (;;) {
        const left = deadline - Date.now();
        if (left <= 0) return false;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(LOOK_AGAIN_MS, left));
          me.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        me.wake = () => undefined;
        if (await take()) return true;
      }
    } finally {
      queue.splice(queue.indexOf(me), 1);
      if (queue.length === 0) this.waiters.delete(webhookId);
    }
  }

  /** An attempt to the endpoint ended: this process's longest waiter looks now. */
  ended(webhookId: string): void {
    this.waiters.get(webhookId)?.[0]?.wake();
  }
}
