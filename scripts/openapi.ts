/**
 * Writes the OpenAPI document (docs/openapi.json) from the routes' definitions, or with --check
 * fails when the committed one differs (CI runs the check; Redocly lint and the typed client read the file).
 */
import fs from 'node:fs';
import path from 'node:path';
import { documentedOperations } from '../src/api/app';
import { openApiDocument } from '../src/api/openapi';
import { loadConfig } from '../src/config';

export const OPENAPI_FILE = path.join(__dirname, '..', 'docs', 'openapi.json');

export function documentText(): string {
  return `${JSON.stringify(openApiDocument(documentedOperations(loadConfig({}))), null, 2)}\n`;
}

if (require.main === module) {
  const text = documentText();
  if (process.argv.includes('--check')) {
    const committed = fs.existsSync(OPENAPI_FILE) ? fs.readFileSync(OPENAPI_FILE, 'utf8') : '';
    if (committed !== text) {
      console.error('docs/openapi.json is not the routes’ document: run npm run openapi and commit it');
      process.exit(1);
    }
    console.log('docs/openapi.json is up to date');
  } else {
    fs.writeFileSync(OPENAPI_FILE, text);
    console.log(`wrote ${path.relative(process.cwd(), OPENAPI_FILE)}`);
  }
}
