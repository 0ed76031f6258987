/**
 * Every code block of the docs that names a package or a header names one a reader can use: a
 * package imported, required or installed is this project's own dependency or the client package
 * (`payment-custody-client`, never the private `payment-custody-service`), each name imported from
 * the client is one it exports, and every header named is one the service sends or reads.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '..', '..');
const pages = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const blocks = pages.flatMap((page) =>
  [...fs.readFileSync(path.join(ROOT, page), 'utf8').matchAll(/^```[\w-]*\n([\s\S]*?)^```$/gm)].map((m) => ({ page, code: m[1] })),
);
const rootPackage = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
const CLIENT = 'payment-custody-client';
const installable = new Set([...Object.keys(rootPackage.dependencies), ...Object.keys(rootPackage.devDependencies), CLIENT]);
const clientExports = new Set(
  [
    ...fs
      .readFileSync(path.join(ROOT, 'packages/client/src/index.ts'), 'utf8')
      .matchAll(/export (?:type )?\{([^}]*)\}|export (?:async )?(?:function|class|const|type) (\w+)/g),
  ].flatMap((m) =>
    m[2]
      ? [m[2]]
      : m[1].split(',').map((n) =>
          n
            .replace(/^\s*type\s+/, '')
            .split(/\s+as\s+/)
            .pop()!
            .trim(),
        ),
  ),
);
/** Every text of src/: a header the service sends or reads is named there. */
const sources = (dir: string): string[] =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : [fs.readFileSync(path.join(dir, e.name), 'utf8')]));
const src = sources(path.join(ROOT, 'src')).join('\n').toLowerCase();

/** The package a specifier names (`@scope/name` or `name`), or undefined for a relative path or a Node built-in. */
const packageOf = (spec: string) =>
  spec.startsWith('.') || spec.startsWith('node:') || spec.startsWith('/')
    ? undefined
    : spec
        .split('/')
        .slice(0, spec.startsWith('@') ? 2 : 1)
        .join('/');

describe('the docs’ code blocks', () => {
  it('exist', () => expect(blocks.length).toBeGreaterThan(50));

  it('name only packages a reader can install, and only names the client package exports', () => {
    const wrong: string[] = [];
    for (const { page, code } of blocks) {
      for (const m of code.matchAll(/(?:import\s+(?:type\s+)?(?:\{([^}]*)\}|[\w*\s,]+)\s+from\s+|require\()\s*['"]([^'"]+)['"]/g)) {
        const pkg = packageOf(m[2]);
        if (pkg === undefined) continue;
        if (!installable.has(pkg)) wrong.push(`${page}: ${pkg} (not installable: use ${CLIENT})`);
        if (pkg === CLIENT && m[1])
          for (const name of m[1]
            .split(',')
            .map((n) =>
              n
                .replace(/^\s*type\s+/, '')
                .split(/\s+as\s+/)[0]
                .trim(),
            )
            .filter(Boolean))
            if (!clientExports.has(name)) wrong.push(`${page}: ${name} is not exported by ${CLIENT}`);
      }
      for (const m of code.matchAll(/npm (?:install|i) ([^\n&|;]+)/g))
        for (const spec of m[1].split(/\s+/).filter((s) => s && !s.startsWith('-') && !s.includes('/') && !s.endsWith('.tgz')))
          if (!installable.has(packageOf(spec) ?? '')) wrong.push(`${page}: npm install ${spec}`);
    }
    expect(wrong).toEqual([]);
  });

  it('name only headers the service sends or reads', () => {
    const wrong: string[] = [];
    for (const { page, code } of blocks) {
      const named = [
        ...[...code.matchAll(/-H\s+['"]([A-Za-z][\w-]*):/g)].map((m) => m[1]),
        ...[...code.matchAll(/headers\[['"]([\w-]+)['"]\]/g)].map((m) => m[1]),
        ...[...code.matchAll(/\b((?:X-Service|Webhook)-[A-Za-z-]+)\b/gi)].map((m) => m[1]),
      ];
      for (const header of named) if (!src.includes(header.toLowerCase())) wrong.push(`${page}: ${header}`);
    }
    expect(wrong).toEqual([]);
  });
});
