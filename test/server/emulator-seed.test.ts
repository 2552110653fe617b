// `POST /_emulator/reset {"to":"seed"}` loads the seed files as `serve --seed` did (store/fixtures/seed.ts):
// several files whose threads name a workspace of another file, one of them past BULK_RECORDS; a
// seed file broken, changed or gone after the start is a clear 422 and changes nothing. On both
// stores (the postgres project runs test/server/**).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SNAPSHOT_KEPT } from '../../src/store/engine/interface.js';
import { exportDocument } from '../../src/store/fixtures/export.js';
import { parseStoreUrl, PostgresEngine } from '../../src/store/postgres/engine.js';
import { Names } from '../../src/store/postgres/schema.js';
import { COLLECTIONS } from '../../src/store/records.js';
import { BULK_RECORDS } from '../../src/store/json/store.js';
import { generateThreads } from '../support/generate-threads.mjs';
import { DEMO, demo, onPort, tempDir } from '../support/server.js';

let server: Awaited<ReturnType<typeof onPort>>;
let fixtures: ReturnType<typeof tempDir>;
let seeded: string;
const GENERATED = BULK_RECORDS + 100;
const doc = JSON.parse(readFileSync(DEMO, 'utf8')) as Record<string, unknown> & { threads: unknown[] };
const file = (name: string) => path.join(fixtures.dir, name);
const write = (name: string, value: unknown) => writeFileSync(file(name), JSON.stringify(value));
// The demo without its threads, then its threads in two files, then generated threads: every
// thread file names a workspace that only base.json holds.
const parts: Array<[string, unknown]> = [
  ['base.json', { ...doc, threads: [] }],
  ['threads-a.json', { version: 1, threads: doc.threads.slice(0, 20) }],
  ['threads-b.json', { version: 1, threads: doc.threads.slice(20) }],
  ['generated.json', generateThreads({ count: GENERATED })],
];

beforeAll(async () => {
  fixtures = tempDir('wcm-reset-seed-');
  for (const [name, value] of parts) write(name, value);
  server = await onPort({ fixtures: parts.map(([name]) => file(name)) });
  seeded = await stateNow();
}, 120_000);
afterAll(async () => {
  await server?.close();
  fixtures?.cleanup();
});

/**
 * The whole state but what a reset keeps, as text: on the JSON file its export; on PostgreSQL
 * every record of every table, read from the database (what any process on it reads).
 */
async function stateNow(): Promise<string> {
  if (!server.storeUrl) return JSON.stringify(await exportDocument(server.store));
  const { default: postgres } = await import('postgres');
  const { base, schema } = parseStoreUrl(server.storeUrl);
  const names = new Names(schema);
  const sql = postgres(base, { max: 1, onnotice: () => undefined });
  try {
    const out: Record<string, string[]> = {};
    for (const c of COLLECTIONS.filter((c) => !SNAPSHOT_KEPT.includes(c)))
      out[c] = (await sql.unsafe(`select doc::text as doc from ${names.records(c)} order by id collate "C"`)).map(
        (r) => r.doc as string,
      );
    return JSON.stringify(out);
  } finally {
    await sql.end();
  }
}

const control = async (body: unknown) => {
  const res = await fetch(`${new URL(server.url).origin}/_emulator/reset`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { detail?: string; errors?: any; data?: any } };
};
const addListing = async (title: string) =>
  (
    await fetch(`${server.url}/workspaces/${demo.ws1}/lists`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demo.owner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title, template_slug: 'faq' }),
    })
  ).status;

describe('reset --to seed', () => {
  it('loads every seed file again, threads naming a workspace of another file: the state is the seeded one', async () => {
    expect(await addListing('After the seed')).toBe(201);
    expect(await stateNow()).not.toBe(seeded);
    const reset = await control({ to: 'seed' });
    expect(reset.status, reset.json.detail).toBe(200);
    expect(reset.json.data.records).toMatchObject({
      workspaces: 3,
      listings: 8,
      threads: doc.threads.length + GENERATED,
    });
    expect(await stateNow()).toBe(seeded);
    const me = await fetch(`${server.url}/me`, { headers: { authorization: `Bearer ${demo.owner}` } });
    expect(me.status).toBe(200);
  });

  it.runIf(process.env.WCM_TEST_STORE === 'postgres')(
    'another process on the database sees the reset whole on its next request',
    async () => {
      const other = await PostgresEngine.open(server.storeUrl!, { max: 2 });
      try {
        expect(await addListing('Seen by the other process')).toBe(201);
        expect(await other.read((tx) => tx.count('listings'))).toBe(9);
        expect((await control({ to: 'seed' })).status).toBe(200);
        // Its next read sees the seed whole: the listing gone, every thread back.
        expect(await other.read(async (tx) => [await tx.count('listings'), await tx.count('threads')])).toEqual([
          8,
          doc.threads.length + GENERATED,
        ]);
        expect(await stateNow()).toBe(seeded);
      } finally {
        await other.close();
      }
    },
  );

  it.each([
    ['broken JSON', () => writeFileSync(file('threads-b.json'), '{"version": 1, "threads": ['), /is not valid JSON/],
    [
      'a thread naming a workspace no seed file holds',
      () =>
        write('threads-b.json', {
          version: 1,
          threads: [{ ...(doc.threads[20] as object), workspace_id: '00000000-0000-4000-8000-000000000000' }],
        }),
      /\$\.threads\[0\]\.workspace_id/,
    ],
    ['gone', () => rmSync(file('threads-b.json')), /not found/],
  ])('a seed file %s since the start is a 422 naming it, and nothing changes', async (_, change, problem) => {
    expect(await addListing('Kept through a failed reset')).toBe(201);
    const before = await stateNow();
    change();
    try {
      const reset = await control({ to: 'seed' });
      expect(reset.status).toBe(422);
      expect(reset.json.detail).toContain(file('threads-b.json'));
      expect(reset.json.detail).toMatch(problem);
      expect(reset.json.errors.to.join('\n')).toMatch(problem);
      expect(await stateNow()).toBe(before);
    } finally {
      write('threads-b.json', parts[2][1]);
    }
    expect((await control({ to: 'seed' })).status).toBe(200);
    expect(await stateNow()).toBe(seeded);
  });
});
