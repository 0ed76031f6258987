/**
 * The typed client as a user gets it (docs/client.md): builds packages/client, packs it, installs the
 * tarball into a scratch project with `npm install`, and compiles docs/client.md's snippet there with
 * `tsc` under `module` commonjs, node16, nodenext and preserve (moduleResolution bundler), as a
 * CommonJS file and as an ES module; then loads the installed package both ways with Node.js.
 * `npm run check:client-package`; CI runs it (.ci/run). Offline: the client's dependency is packed
 * from this repository's node_modules and installed beside it, at the version the package pins.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '..');
export const CLIENT_DIR = path.join(ROOT, 'packages', 'client');
export const CLIENT_DOC = path.join(ROOT, 'docs', 'client.md');
const TSC = require.resolve('typescript/bin/tsc');

/** The TypeScript settings a user's project may have; each must compile the snippet. */
export const SETTINGS: Record<string, { module: string; moduleResolution?: string }> = {
  commonjs: { module: 'commonjs' },
  node16: { module: 'node16' },
  nodenext: { module: 'nodenext' },
  preserve: { module: 'preserve', moduleResolution: 'bundler' },
};

/** docs/client.md's first `ts` block after its install command: the code a user pastes first. */
export function clientSnippet(doc = fs.readFileSync(CLIENT_DOC, 'utf8')): string {
  const from = doc.indexOf('npm install ');
  const block = /```ts\n([\s\S]*?)```/.exec(doc.slice(from));
  if (from < 0 || !block) throw new Error('docs/client.md has no ts block after its npm install command');
  return block[1];
}

/**
 * A line that compiles only while the package's types are real: a misspelt path is a compile
 * error (were the types lost to `any`, the unused @ts-expect-error would fail instead).
 */
const TYPES_HOLD = `import { createClient } from 'payment-custody-client';
// @ts-expect-error '/api/v1/payment' is not a path of the API
void createClient({ baseUrl: 'http://127.0.0.1:3000' }).GET('/api/v1/payment');
`;

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Packs the built package and what it depends on, and installs the client's tarball into a new project. */
function scratchProject(): { dir: string; tarball: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-scratch-'));
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ name: 'scratch', version: '1.0.0', private: true })}\n`);
  const pinned = (JSON.parse(fs.readFileSync(path.join(CLIENT_DIR, 'package.json'), 'utf8')) as { dependencies: Record<string, string> })
    .dependencies;
  const fetchDir = path.join(ROOT, 'node_modules', 'openapi-fetch');
  const fetchPackage = JSON.parse(fs.readFileSync(path.join(fetchDir, 'package.json'), 'utf8')) as { version: string };
  if (fetchPackage.version !== pinned['openapi-fetch']) {
    throw new Error(`packages/client pins openapi-fetch ${pinned['openapi-fetch']}, the repository has ${fetchPackage.version}`);
  }
  const packed = [CLIENT_DIR, fetchDir, path.join(ROOT, 'node_modules', 'openapi-typescript-helpers')].map((d) =>
    run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir, d], dir).trim(),
  );
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', ...packed.map((t) => `./${t}`)], dir);
  return { dir, tarball: packed[0] };
}

function main() {
  execFileSync(process.execPath, [path.join(CLIENT_DIR, 'build.mjs')], { stdio: 'inherit' });
  const { dir, tarball } = scratchProject();
  try {
    const snippet = clientSnippet();
    fs.writeFileSync(path.join(dir, 'snippet.ts'), snippet);
    fs.writeFileSync(path.join(dir, 'snippet.mts'), snippet);
    fs.writeFileSync(path.join(dir, 'types-hold.ts'), TYPES_HOLD);
    const failed: string[] = [];
    for (const [name, options] of Object.entries(SETTINGS)) {
      const config = {
        compilerOptions: {
          ...options,
          target: 'ES2022',
          strict: true,
          noEmit: true,
          types: ['node'],
          // @types/node as the user's project has it; from this repository, offline.
          typeRoots: [path.join(ROOT, 'node_modules', '@types')],
        },
        files: ['snippet.ts', 'snippet.mts', 'types-hold.ts'],
      };
      fs.writeFileSync(path.join(dir, `tsconfig.${name}.json`), JSON.stringify(config, null, 2));
      try {
        run(process.execPath, [TSC, '-p', `tsconfig.${name}.json`], dir);
        console.log(`tsc, module ${options.module}${options.moduleResolution ? ` (${options.moduleResolution})` : ''}: compiles`);
      } catch (err) {
        const out = err as { stdout?: string; stderr?: string };
        failed.push(`module ${name}:\n${out.stdout ?? ''}${out.stderr ?? ''}`);
      }
    }
    if (failed.length > 0) throw new Error(`docs/client.md's snippet does not compile against ${tarball}:\n${failed.join('\n')}`);
    // The built code loads both ways, with its dependency, as Node.js resolves the exports map.
    const names = "['ApiRequestError','createClient','ok','verifyWebhook','verifyWebhookSignature']";
    const check = `if (!${names}.every((n) => typeof m[n] === 'function')) throw new Error('missing exports')`;
    run(process.execPath, ['-e', `const m = require('payment-custody-client'); ${check}`], dir);
    run(process.execPath, ['--input-type=module', '-e', `const m = await import('payment-custody-client'); ${check}`], dir);
    console.log(
      `${tarball}: installed with npm install, its snippet compiles under ${Object.keys(SETTINGS).join(', ')}, loads by require and import`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) main();
