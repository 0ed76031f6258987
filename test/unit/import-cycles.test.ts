/**
 * No import circle anywhere in the tree (docs/architecture.md, "Rooms and the direction of
 * imports"): each module's imports, type-only ones and re-exports included, read with the
 * TypeScript compiler's own pre-processor, form no cycle. The same answer as
 * `npx madge --circular --extensions ts src scripts tools test`, without a dependency for it.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const ROOMS = ['src', 'scripts', 'tools', 'test'];

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(file);
    return /\.(c|m)?tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [file] : [];
  });
}

/** The module a relative specifier names, as the project's resolution finds it (no extension, or .js for .ts). */
function resolve(from: string, specifier: string, known: Set<string>): string | undefined {
  const base = path.resolve(path.dirname(from), specifier);
  const candidates = [base, `${base}.ts`, `${base}.mts`, `${base}.tsx`, base.replace(/\.(m|c)?js$/, '.$1ts'), path.join(base, 'index.ts')];
  return candidates.find((c) => known.has(c));
}

/** Every cycle's modules, each cycle once (Tarjan's strongly connected components of two or more, or a self-import). */
function importCycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

function importGraph(): Map<string, string[]> {
  const files = ROOMS.flatMap((room) => sources(path.join(ROOT, room)));
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
      const targets = importedFiles.filter((i) => i.fileName.startsWith('.')).map((i) => resolve(file, i.fileName, known));
      return [file, [...new Set(targets.filter((t) => t !== undefined))]];
    }),
  );
}

describe('imports', () => {
  it('form no circle in src, scripts, tools or test', () => {
    const cycles = importCycles(importGraph()).map((c) => c.map((f) => path.relative(ROOT, f)));
    expect(cycles).toEqual([]);
  });
  it('a circle is found, of two modules or of one importing itself', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c', 'a']],
      ['c', []],
      ['d', ['d']],
    ]);
    expect(importCycles(graph)).toEqual([['a', 'b'], ['d']]);
  });
});
