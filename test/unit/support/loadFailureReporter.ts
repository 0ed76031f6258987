/**
 * A vitest reporter for the mutation run: a test file that fails to load (a static mutant made a
 * module throw on import) becomes one failed test, so Stryker counts the mutant as killed.
 */
import type { Reporter, Vitest } from 'vitest/node';

// Stryker's vitest runner (9.6) builds a mutant's result from the tests it collected, and a file
// whose import threw collected none: the mutant would count as survived (stryker-js issue 6150).
export default class LoadFailureReporter implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(): void {
    for (const file of this.vitest?.state.getFiles() ?? []) {
      if (file.result?.state !== 'fail' || file.tasks.length > 0) continue;
      const message = file.result.errors?.[0]?.message ?? 'the test file failed to load';
      // The fields Stryker's runner reads; vitest reads no task again once the run has ended.
      file.tasks.push({
        type: 'test',
        id: `${file.id}_load`,
        name: 'loads',
        mode: 'run',
        file,
        suite: undefined,
        result: { state: 'fail', errors: [{ message }] },
      } as never);
    }
  }
}
