/**
 * The slowest test files and tests of a CI run, read from the JUnit reports vitest writes under CI
 * (vitest.config.mts): `node --import tsx scripts/ci-slowest.ts test-output/junit [count]`.
 * .ci/run prints it at the end of every run (docs/testing.md, "How long CI takes").
 */
import fs from 'node:fs';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';

interface Timed {
  name: string;
  seconds: number;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  isArray: (name) => name === 'testsuite' || name === 'testcase',
});

/** Every file's and every test's time in one JUnit report (`testsuite` per file, `testcase` per test). */
function read(file: string): { files: Timed[]; tests: Timed[] } {
  const report = parser.parse(fs.readFileSync(file, 'utf8')) as {
    testsuites?: { testsuite?: { name: string; time: string; testcase?: { name: string; time: string }[] }[] };
  };
  const step = path.basename(file, '.xml');
  const files: Timed[] = [];
  const tests: Timed[] = [];
  for (const suite of report.testsuites?.testsuite ?? []) {
    files.push({ name: `${step} ${suite.name}`, seconds: Number(suite.time) });
    for (const test of suite.testcase ?? []) tests.push({ name: `${step} ${suite.name} › ${test.name}`, seconds: Number(test.time) });
  }
  return { files, tests };
}

function top(title: string, rows: Timed[], count: number): void {
  console.log(title);
  for (const row of [...rows].sort((a, b) => b.seconds - a.seconds).slice(0, count)) {
    console.log(`${row.seconds.toFixed(1).padStart(8)} s  ${row.name}`);
  }
}

const dir = process.argv[2] ?? 'test-output/junit';
const count = Number(process.argv[3] ?? 15);
const reports = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.xml')) : [];
const all = reports.map((f) => read(path.join(dir, f)));
top(
  'files (step, file):',
  all.flatMap((r) => r.files),
  count,
);
top(
  'tests:',
  all.flatMap((r) => r.tests),
  count,
);
