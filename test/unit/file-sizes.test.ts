/**
 * Every file in src/ stays within 300 lines (docs/architecture.md, "Rooms and the direction of
 * imports"): one that grows past it is split by meaning, and this says which grew.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const SRC = path.resolve(__dirname, '../../src');
const MOST_LINES = 300;

const files = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));

it(`no file in src/ is longer than ${MOST_LINES} lines`, () => {
  const lines = (file: string) => fs.readFileSync(file, 'utf8').split('\n').length - 1;
  const over = files(SRC)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `${path.relative(SRC, f)}: ${lines(f)}`)
    .filter((entry) => Number(entry.split(': ')[1]) > MOST_LINES);
  expect(over).toEqual([]);
});
