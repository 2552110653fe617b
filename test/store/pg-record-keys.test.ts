// The records' keyset pages on PostgreSQL (src/store/pg/record-reads.ts) must be exactly the JSON
// store's (src/store/sorted-index.ts) for every index: the sort keys are bytes whose order is
// compareKeys's (null lowest, JavaScript string comparison: code units, no collation).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INDEXES } from '../../src/store/indexes.js';
import type { CollectionName } from '../../src/store/records.js';
import type { RecordIndex, RecordPageQuery, RecordRepository, RecordSlice } from '../../src/store/record-repository.js';
import { INDEXES_OF } from '../../src/store/pg/records.js';
import { encodeKey } from '../../src/store/pg/sort-keys.js';
import { compareKeys, type SortKey } from '../../src/store/sorted-index.js';
import { Store } from '../../src/store/store.js';
import { freshDatabase } from '../support/postgres.js';

const WS = ['ws-a', 'ws-b'];
// Names that JavaScript orders differently from a collation or from UTF-8 bytes: case, accents,
// a character past U+FFFF (a surrogate pair) against one in U+E000–U+FFFF, an empty name, ties.
const NAMES = [
  'apple',
  'Apple',
  'émile',
  'Émile',
  'zed',
  'Zebra',
  '𝒳 math',
  '\uE000 private',
  '\uFFFD',
  '',
  'a\tb',
  'ä',
  'z',
];
const TIMES = [
  '2026-01-01T00:00:00.000Z',
  '2026-01-02T10:00:00.000Z',
  '2026-03-04T05:06:07.890Z',
  '2025-12-31T23:59:59.999Z',
];

/** Record `i`: every member any index reads, some keys null, many ties on the key (the id breaks them). */
function record(i: number): Record<string, unknown> {
  const at = (k: number) => (i % 9 === k ? null : TIMES[(i * (k + 3)) % TIMES.length]);
  return {
    id: `rec-${String((i * 7919) % 1000).padStart(4, '0')}-${i}`,
    workspace_id: WS[i % 2],
    list_id: WS[i % 2],
    user_id: WS[i % 2],
    grant_id: WS[i % 2],
    created_at: at(0),
    updated_at: at(1),
    starts_at: at(2),
    started_at: at(3),
    occurred_at: at(4),
    name: NAMES[i % NAMES.length],
    title: NAMES[(i * 5) % NAMES.length].toUpperCase(),
    published: i % 3 === 0,
    versions: i % 11 === 0 ? [] : [{ created_at: at(5) }],
    revoked_at: i % 17 === 0 ? TIMES[0] : null,
    members: [{ user_id: WS[i % 2], role: 'member' }],
    workspace_ids: i % 5 === 0 ? [] : [WS[i % 2]],
    payment_intent_id: WS[i % 2],
    at: (i * 37) % 1000,
  };
}

const N = 400;
const RECS = Array.from({ length: N }, (_, i) => record(i));
// Tokens stay in memory on every store (and their index's key has no id to break ties): not here.
const COLLECTIONS = [...INDEXES_OF.keys()].filter((c) => c !== 'tokens');
let dir: string;
let json: Store;
let pg: RecordRepository;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'wcm-pg-keys-'));
  json = await Store.open(path.join(dir, 'store.json'));
  await json.bulk((tx) => {
    for (const c of COLLECTIONS) for (const r of RECS) tx.put(c, r as never);
  });
  const db = await freshDatabase();
  // Every collection with an index in the table, written as the log writes them (COPY: past 1,000 rows).
  const store = await Store.openShared(db.url, new Set<CollectionName>(COLLECTIONS));
  await store.bulk((tx) => {
    for (const c of COLLECTIONS) for (const r of RECS) tx.put(c, r as never);
  });
  pg = store.records;
  afterAll(() => store.close());
}, 60_000);

afterAll(async () => {
  await json?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function pageAll(
  repo: RecordRepository,
  index: RecordIndex,
  part: string,
  q: Omit<RecordPageQuery<{ id: string }>, 'after'>,
) {
  const ids: string[] = [];
  const lasts: Array<SortKey | null> = [];
  let after: SortKey | null = null;
  for (let guard = 0; guard < 500; guard++) {
    const p: RecordSlice<{ id: string }> = await repo.page(index, part, { ...q, after });
    ids.push(...p.items.map((r) => r.id));
    lasts.push(p.last);
    if (!p.more) break;
    after = p.last;
  }
  return { ids, lasts };
}

const INDEX_NAMES = COLLECTIONS.flatMap((c) => INDEXES_OF.get(c)!.map((d) => d.name));

describe('record keys on PostgreSQL', () => {
  it('order as compareKeys does, byte for byte (nulls, numbers, non-ASCII, surrogate pairs, prefixes)', () => {
    // Within one index every key has the same types; numbers and strings are never compared.
    const numbers: SortKey[] = [
      [null],
      [null, 'a'],
      [-1e9, 'x'],
      [-1.5, 'x'],
      [0, 'x'],
      [0, 'y'],
      [2, 'x'],
      [10],
      [1e12],
    ];
    const strings: SortKey[] = [[null], [null, 'a'], [''], ['', 'a']];
    for (const n of NAMES) strings.push([n], [n, 'id'], [n.toLowerCase(), null], [`${n}\u0000`]);
    for (const keys of [numbers, strings])
      for (const a of keys)
        for (const b of keys)
          expect(
            Math.sign(Buffer.compare(encodeKey(a), encodeKey(b))),
            `${JSON.stringify(a)} vs ${JSON.stringify(b)}`,
          ).toBe(Math.sign(compareKeys(a, b)));
  });

  it('page every index as the JSON store does, page by page, in both orders, with filters and ranges', async () => {
    expect(new Set(INDEX_NAMES.map((n) => INDEXES[n].order))).toEqual(new Set(['asc', 'desc']));
    let compared = 0;
    for (const index of INDEX_NAMES) {
      const def = INDEXES[index];
      const parts = [
        ...new Set(
          RECS.flatMap((r) =>
            'partitions' in def && def.partitions ? def.partitions(r as never) : [def.partition(r as never)],
          ),
        ),
      ];
      const keys = RECS.map((r) => def.key(r as never)).sort(compareKeys);
      const mid = keys[Math.floor(keys.length / 3)].slice(0, 1);
      const high = keys[Math.floor((keys.length * 2) / 3)].slice(0, 1);
      const [from, to] = def.order === 'asc' ? [mid, high] : [high, mid];
      const odd = (r: { id: string }) => r.id.charCodeAt(4) % 2 === 1;
      for (const part of [...parts, 'no-such-partition'])
        for (const q of [
          { limit: 7 },
          { limit: 50 },
          { limit: 3, filter: odd },
          { limit: 5, from, to },
          { limit: 4, from },
          { limit: 4, to, filter: odd },
        ]) {
          const want = await pageAll(json.records, index, part, q);
          expect(await pageAll(pg, index, part, q), `${index} ${part} ${JSON.stringify(q)}`).toEqual(want);
          compared += want.ids.length;
        }
      for (const part of parts) expect(await pg.count(index, part)).toBe(await json.records.count(index, part));
    }
    expect(compared).toBeGreaterThan(N * INDEX_NAMES.length);
  });

  it('get, size, stream in the export order (the first index), and taken ids', async () => {
    for (const c of COLLECTIONS) {
      const streamed = [];
      for await (const r of pg.stream(c)) streamed.push(r);
      expect(streamed, c).toEqual(json.valuesInOrder(c));
      expect(await pg.size(c)).toBe(N);
    }
    expect(await pg.get('listings', RECS[5].id as string)).toEqual(RECS[5]);
    expect(await pg.get('listings', 'nope')).toBeUndefined();
    expect(await pg.taken('forms', [RECS[1].id as string, 'nope'])).toEqual([RECS[1].id]);
  });
});
