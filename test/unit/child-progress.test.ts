/** The first `npm start` that builds the Temporal CLI is never silent: a line at least every 10 s with the elapsed time (src/platform/lib/childProgress.ts). */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { waitReporting } from '../../src/platform/lib/childProgress';

afterEach(() => {
  vi.useRealTimers();
});

describe('waitReporting', () => {
  it('says every 10 s, by default, how long the child has been running, and stops saying it when the child exits', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const child = spawn('sleep', ['600']);
    const lines: string[] = [];
    const exited = waitReporting(child, 'building the Temporal CLI', (m) => lines.push(m));
    vi.advanceTimersByTime(9_999);
    expect(lines).toEqual([]);
    vi.advanceTimersByTime(1);
    vi.advanceTimersByTime(10_000);
    expect(lines).toEqual(['building the Temporal CLI: 10 s elapsed', 'building the Temporal CLI: 20 s elapsed']);
    child.kill('SIGTERM');
    expect(await exited).toBeNull();
    vi.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(2);
  });

  it('resolves to the exit code of a child that fails, after reporting while it ran', async () => {
    const lines: string[] = [];
    const code = await waitReporting(spawn('sh', ['-c', 'sleep 1; exit 3']), 'work', (m) => lines.push(m), 200);
    expect(code).toBe(3);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(line).toMatch(/^work: \d+ s elapsed$/);
  });

  it('rejects when the child cannot be started', async () => {
    await expect(waitReporting(spawn('/nonexistent/go'), 'work', () => undefined)).rejects.toThrow(/ENOENT/);
  });
});
