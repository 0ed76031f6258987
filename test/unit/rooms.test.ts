/**
 * Rooms by concept (docs/architecture.md, "Rooms: one folder per concept"): every file of src/ is in
 * a concept's folder or the platform's, its kind in its name, and no two files share a name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
const ROOT = path.resolve(__dirname, '../..');
// The same list the import directions of eslint.config.mjs apply to a room's plain helpers.
const ROOM_HELPERS = (JSON.parse(fs.readFileSync(path.join(ROOT, 'tools/room-helpers.json'), 'utf8')) as { helpers: string[] }).helpers;
const CONCEPTS = ['payments', 'ledger', 'webhooks', 'payouts', 'recipients', 'audit', 'tenants', 'reconciliation'];
const KIND = /\.(rules|format|view|workflow|messages|repository|activities|service|routes|schemas|middleware)\.ts$/;
const PLATFORM_FOLDERS = ['http', 'database', 'worker', 'lib'];
const ENTRY_POINTS = ['src/main.ts', 'src/index.ts', 'src/demo.ts', 'src/localSecrets.ts', 'src/bin/api.ts', 'src/bin/worker.ts'];

function files(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const file = `${dir}/${e.name}`;
    return e.isDirectory() ? files(file) : [file];
  });
}

/** Why a file of src/ is out of place, or undefined when it is where the rooms say. */
export function misplaced(file: string): string | undefined {
  if (ENTRY_POINTS.includes(file)) return undefined;
  const [, room, ...rest] = file.split('/');
  if (room === 'platform') {
    if (rest.length === 2 && PLATFORM_FOLDERS.includes(rest[0])) return undefined;
    if (rest.length === 1) return undefined;
    return 'src/platform holds files and the folders http, database, worker and lib only';
  }
  if (!CONCEPTS.includes(room)) return `${room} is not a concept's folder`;
  if (rest.length !== 1) return "a concept's folder has no sub-folders";
  if (KIND.test(file) || ROOM_HELPERS.includes(file)) return undefined;
  return "its kind is not in its name (.rules.ts, .service.ts, …) and it is not one of the room's listed helpers";
}

describe('rooms by concept', () => {
  const all = files('src');

  it('puts every file of src/ in a concept or the platform, with its kind in its name', () => {
    const out = all.map((file) => [file, misplaced(file)]).filter(([, why]) => why !== undefined);
    expect(out).toEqual([]);
  });

  it('refuses a file out of its room', () => {
    expect(misplaced('src/payments/payment.rules.ts')).toBeUndefined();
    expect(misplaced('src/payments/payment.ts')).toMatch(/kind/);
    expect(misplaced('src/domain/money.ts')).toMatch(/not a concept/);
    expect(misplaced('src/ledger/sub/money.rules.ts')).toMatch(/sub-folders/);
  });

  it('gives no two files of src/ one name', () => {
    const byName = new Map<string, string[]>();
    for (const file of all) byName.set(path.basename(file), [...(byName.get(path.basename(file)) ?? []), file]);
    expect([...byName.values()].filter((same) => same.length > 1)).toEqual([]);
  });
});
