/**
 * The docs point at current paths: `GET /payments/:id/events` is the deprecated name of a payment's
 * history (`/history`), so a page may name it only where it says that it is deprecated.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/docPage';

const pages = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('docs name no deprecated path as the way to do something', () => {
  it.each(pages)('%s', (page) => {
    const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
    // A paragraph (lines up to a blank one) that names a payment's /events must call it deprecated.
    const paragraphs = text.split(/\n\s*\n/).filter((p) => /payments\/[^\s`/]+\/events\b/.test(p));
    for (const p of paragraphs) expect(p, `${page} points at the deprecated /payments/…/events`).toMatch(/deprecated/);
  });
});
