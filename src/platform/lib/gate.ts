/**
 * A bounded concurrency gate: at most `concurrency` tasks run at once and at most `queue` wait;
 * beyond that a task is refused at once (the caller answers 429). Password hashing goes through one,
 * so a login flood cannot fill libuv's thread pool, which DNS lookups and database connects share.
 */
import { RateLimited } from '../useCaseErrors';

export class Gate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly queue: number,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      // One second: a hash takes well under one, so the queue has moved on by then.
      if (this.waiting.length >= this.queue) throw new RateLimited(1);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running += 1;
    try {
      return await task();
    } finally {
      // The slot passes to the next waiter, or frees.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
