/**
 * The published OpenAPI document (docs/openapi.json, written by `npm run openapi`) is, to the letter,
 * what the routes' and the views' schemas give: every field, type, enum and description a view
 * declares is what a client reads. `.ci/run` checks the same file; here it also pins the views'
 * schemas for mutation testing (a changed description or field is a failing unit test).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentedOperations } from '../../tools/documentedOperations';
import { openApiDocument } from '../../src/platform/http/openapi';
import { loadConfig } from '../../src/platform/config';

describe('docs/openapi.json', () => {
  it('is the document the schemas give', () => {
    const built = `${JSON.stringify(openApiDocument(documentedOperations(loadConfig({}))), null, 2)}\n`;
    const published = fs.readFileSync(path.join(__dirname, '../../docs/openapi.json'), 'utf8');
    // A boolean, not a diff of two large texts: `npm run openapi` rewrites the file, `git diff` shows the change.
    expect(built === published, 'docs/openapi.json differs from the schemas: run npm run openapi').toBe(true);
  });
});
