/**
 * docker-compose.yml read as data: its services, their environment with compose's interpolation, the
 * image tags (the one source of the Temporal and UI versions) and the host scripts its one-shots mount.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

export const ROOT = path.resolve(__dirname, '../..');

export interface ComposeService {
  image?: string;
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  volumes?: (string | { type?: string; source?: string; target?: string })[];
  deploy?: { replicas?: number };
  restart?: string;
  ports?: (string | number)[];
}

export function readCompose(file = path.join(ROOT, 'docker-compose.yml')): Record<string, ComposeService> {
  return (parse(fs.readFileSync(file, 'utf8'), { merge: true }) as { services: Record<string, ComposeService> }).services;
}

export const argv = (cmd: string | string[] | undefined): string[] =>
  cmd === undefined ? [] : Array.isArray(cmd) ? cmd.map(String) : cmd.split(/\s+/).filter(Boolean);

export function composeEnvironment(service: ComposeService): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) return Object.fromEntries(env.map((e) => [e.split('=')[0], e.slice(e.indexOf('=') + 1)]));
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

/** Compose's variable interpolation: ${X}, ${X:-default}, ${X-default}, ${X:?error}, ${X?error}, $$. */
export function interpolate(value: string, env: Record<string, string | undefined>): string {
  return value.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g,
    (match, name: string, op: string | undefined, arg: string) => {
      if (match === '$$') return '$';
      const set = env[name];
      if (op === ':-') return set ? set : arg;
      if (op === '-') return set ?? arg;
      if (op === ':?' && !set) throw new Error(`required variable ${name} is missing a value: ${arg}`);
      if (op === '?' && set === undefined) throw new Error(`required variable ${name} is missing a value: ${arg}`);
      return set ?? '';
    },
  );
}

/** The image tag of a compose service (`temporalio/server:1.30.1` → `1.30.1`). */
function tag(service: ComposeService, repo: string): string {
  const m = service.image?.match(new RegExp(`^${repo.replace('/', '\\/')}:(\\d+\\.\\d+\\.\\d+)$`));
  if (!m) throw new Error(`docker-compose.yml: expected image ${repo}:X.Y.Z, found ${service.image}`);
  return m[1];
}

export interface Versions {
  /** go.temporal.io/server (temporalio/server and temporalio/admin-tools). */
  server: string;
  /** github.com/temporalio/ui-server/v2 (temporalio/ui). */
  ui: string;
}

export function composeVersions(services = readCompose()): Versions {
  const server = tag(services.temporal, 'temporalio/server');
  for (const oneShot of ['temporal-schema', 'temporal-search-attributes']) {
    if (tag(services[oneShot], 'temporalio/admin-tools') !== server)
      throw new Error(`docker-compose.yml: ${oneShot} must use admin-tools ${server}`);
  }
  return { server: `v${server}`, ui: `v${tag(services['temporal-ui'], 'temporalio/ui')}` };
}

/** The host script a compose one-shot runs: its entrypoint's mounted file, mapped back to the repository. */
export function mountedScript(service: ComposeService): string {
  const mounts = new Map<string, string>();
  for (const v of service.volumes ?? []) {
    if (typeof v === 'string') {
      const [source, target] = v.split(':');
      mounts.set(target, source);
    }
  }
  const entry = argv(service.entrypoint);
  const script = entry.find((a) => mounts.has(a));
  if (!script) throw new Error(`no mounted script in entrypoint ${entry.join(' ')}`);
  return path.resolve(ROOT, mounts.get(script)!);
}
