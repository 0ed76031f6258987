/** A setting that is missing or malformed: its message names the setting. */
export class ConfigError extends Error {}

/** A start-up failure is one clear line on stderr and exit code 1, not a stack trace. */
function exitOnStartupError(err: unknown): never {
  const message = err instanceof ConfigError ? err.message : `start-up failed: ${err instanceof Error ? err.message : String(err)}`;
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/**
 * What a process has started so far (dev server, database, connections, servers), to stop in
 * reverse order when start-up fails half-way, so that a failed start leaves nothing running.
 */
export class Started {
  private stops: Array<() => unknown> = [];

  /** Register how to stop something just started; returns it, for `const x = started.add(await f(), (x) => x.stop())`. */
  add<T>(thing: T, stop: (thing: T) => unknown): T {
    this.stops.push(() => stop(thing));
    return thing;
  }

  /**
   * Stop everything registered, newest first. A failure to stop one, or one that takes more than
   * `eachMs`, does not keep the others running.
   */
  async stopAll(eachMs = 10_000): Promise<void> {
    for (const stop of this.stops.splice(0).reverse()) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.resolve()
          .then(stop)
          .catch(() => undefined),
        new Promise((resolve) => (timer = setTimeout(resolve, eachMs))),
      ]);
      clearTimeout(timer);
    }
  }
}

/** Run `main`; if it fails, stop what it had started, then exit with the start-up error. */
export function runMain(main: (started: Started) => Promise<void>): void {
  const started = new Started();
  main(started).catch(async (err: unknown) => {
    await started.stopAll();
    exitOnStartupError(err);
  });
}
