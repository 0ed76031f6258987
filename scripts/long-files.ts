/**
 * The files of src/ longer than 300 lines, longest first: a report, not a check (docs/architecture.md,
 * "Rooms and the direction of imports"). A long file is split by meaning when one meaning has grown
 * past a reader's page, never by line count alone. `npm run report:long-files [lines]`; .ci/run prints it.
 */
import fs from 'node:fs';
import path from 'node:path';

const SRC = path.resolve(__dirname, '../src');
const longerThan = Number(process.argv[2] ?? 300);

const files = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));

const long = files(SRC)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => ({ file: path.relative(path.dirname(SRC), f), lines: fs.readFileSync(f, 'utf8').split('\n').length - 1 }))
  .filter((f) => f.lines > longerThan)
  .sort((a, b) => b.lines - a.lines);

console.log(long.length === 0 ? `no file of src/ is longer than ${longerThan} lines` : `files of src/ longer than ${longerThan} lines:`);
for (const { file, lines } of long) console.log(`${String(lines).padStart(6)}  ${file}`);
