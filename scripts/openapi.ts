/**
 * Writes the OpenAPI document (docs/openapi.json) from the routes' definitions and the typed
 * client's types (examples/client/schema.d.ts, by openapi-typescript) from the document; with
 * --check, fails when either committed file differs from what the routes give (CI runs the check).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { documentedOperations } from '../src/api/app';
import { openApiDocument } from '../src/api/openapi';
import { loadConfig } from '../src/config';

const ROOT = path.join(__dirname, '..');
export const OPENAPI_FILE = path.join(ROOT, 'docs', 'openapi.json');
export const CLIENT_TYPES_FILE = path.join(ROOT, 'examples', 'client', 'schema.d.ts');

export function documentText(): string {
  return `${JSON.stringify(openApiDocument(documentedOperations(loadConfig({}))), null, 2)}\n`;
}

/** openapi-typescript's output for a document text. */
export function clientTypesText(document: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-'));
  try {
    fs.writeFileSync(path.join(dir, 'openapi.json'), document);
    const cli = path.join(path.dirname(require.resolve('openapi-typescript/package.json')), 'bin', 'cli.js');
    const run = spawnSync(process.execPath, [cli, path.join(dir, 'openapi.json'), '-o', path.join(dir, 'schema.d.ts')], {
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`openapi-typescript failed: ${run.stderr}`);
    return fs.readFileSync(path.join(dir, 'schema.d.ts'), 'utf8');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const document = documentText();
  const files: [string, string][] = [
    [OPENAPI_FILE, document],
    [CLIENT_TYPES_FILE, clientTypesText(document)],
  ];
  if (process.argv.includes('--check')) {
    const stale = files.filter(([file, text]) => !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text);
    for (const [file] of stale)
      console.error(`${path.relative(ROOT, file)} differs from the routes' definitions: run npm run openapi and commit it`);
    if (stale.length) process.exit(1);
    console.log('docs/openapi.json and examples/client/schema.d.ts are up to date');
  } else {
    for (const [file, text] of files) {
      fs.writeFileSync(file, text);
      console.log(`wrote ${path.relative(ROOT, file)}`);
    }
  }
}
