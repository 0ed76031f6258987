/**
 * Builds the package twice from src/: ES modules into dist/esm and CommonJS into dist/cjs, each
 * with its .d.ts, and marks each folder's module format with its own package.json so that Node.js
 * and TypeScript read dist/esm as ESM and dist/cjs as CommonJS whatever the consumer's setting.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
fs.rmSync(path.join(here, 'dist'), { recursive: true, force: true });
for (const [config, type] of [
  ['tsconfig.esm.json', 'module'],
  ['tsconfig.cjs.json', 'commonjs'],
]) {
  execFileSync(process.execPath, [tsc, '-p', path.join(here, config)], { stdio: 'inherit' });
  const out = path.join(here, 'dist', type === 'module' ? 'esm' : 'cjs');
  fs.writeFileSync(path.join(out, 'package.json'), `${JSON.stringify({ type })}\n`);
}
