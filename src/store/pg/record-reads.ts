import type { Sql } from 'postgres';
import type { CollectionName } from '../records.js';
import {
  indexCollection,
  type RecordIndex,
  type RecordPageQuery,
  type RecordRepository,
} from '../record-repository.js';
import { INDEXES } from '../indexes.js';
import type { IndexDef, SortKey } from '../sorted-index.js';
import { perSeq } from './per-seq.js';
import { INDEXES_OF, RECORD_TABLE_COLLECTIONS } from './records.js';
import { encodeKey } from './sort-keys.js';

type Rec = { id: string };
const parse = (body: string) => Object.freeze(JSON.parse(body)) as Rec;

/** Rows read per query while a filter drops records (the first read is the page's size, plus one). */
const FILTER_BATCH = 200;

/**
 * The records repository on PostgreSQL: RECORD_TABLE_COLLECTIONS from `wcm_records` with keyset
 * queries over `wcm_record_keys`, every other collection from `memory` (the state). Unfiltered
 * pages, counts and gets are cached per sequence number `seq()`, as the threads' are (per-seq.ts).
 */
export function pgRecords(
  sql: () => Sql,
  seq: () => number,
  memory: RecordRepository,
  tabled: ReadonlySet<CollectionName> = RECORD_TABLE_COLLECTIONS,
): RecordRepository {
  const inTable = (c: CollectionName) => tabled.has(c);
  const pages = perSeq<{ recs: Rec[]; more: boolean }>(seq);
  const counts = perSeq<number>(seq);
  const gets = perSeq<Rec | undefined>(seq);

  /** Up to `n` records of a partition in index order, strictly after `after`, within `from`–`to`. */
  const rows = async (
    index: RecordIndex,
    partition: string,
    q: RecordPageQuery<Rec>,
    after: SortKey | null,
    n: number,
  ) => {
    const def = INDEXES[index] as IndexDef;
    const desc = def.order === 'desc';
    const s = sql();
    // In a descending index "after" a key is below it, and the range runs from `from` down to `to`.
    const past = (key: SortKey, strict: boolean) => {
      const k = encodeKey(key);
      return desc ? (strict ? s`x.k < ${k}` : s`x.k <= ${k}`) : strict ? s`x.k > ${k}` : s`x.k >= ${k}`;
    };
    const before = (key: SortKey) => {
      const k = encodeKey(key);
      return desc ? s`x.k > ${k}` : s`x.k < ${k}`;
    };
    const found = await s<Array<{ body: string }>>`
      select r.body from wcm_record_keys x
      join wcm_records r on r.collection = ${indexCollection(index)} and r.id = x.id
      where x.ix = ${index} and x.part = ${partition}
        ${after ? s`and ${past(after, true)}` : s``}
        ${q.from ? s`and ${past(q.from, false)}` : s``}
        ${q.to ? s`and ${before(q.to)}` : s``}
      order by x.k ${desc ? s`desc` : s`asc`}
      limit ${n}`;
    return found.map((r) => parse(r.body));
  };

  /** A page: rows read in order, the filter applied here, until the page and one more are found or none are left. */
  const fetchPage = async (index: RecordIndex, partition: string, q: RecordPageQuery<Rec>) => {
    const key = INDEXES[index].key as (r: Rec) => SortKey;
    const recs: Rec[] = [];
    let after = q.after ?? null;
    for (let n = q.limit + 1; ; n = Math.max(n, FILTER_BATCH)) {
      const batch = await rows(index, partition, q, after, n);
      for (const r of batch) if (!q.filter || q.filter(r)) recs.push(r);
      if (recs.length > q.limit || batch.length < n) break;
      after = key(batch[batch.length - 1]);
    }
    return { recs: recs.slice(0, q.limit), more: recs.length > q.limit };
  };

  return {
    async get(c, id) {
      if (!inTable(c)) return memory.get(c, id);
      return (await gets(JSON.stringify([c, id]), async () => {
        const [row] = await sql()<Array<{ body: string }>>`
          select body from wcm_records where collection = ${c} and id = ${id}`;
        return row && parse(row.body);
      })) as never;
    },
    async page(index, partition, q) {
      if (!inTable(indexCollection(index))) return memory.page(index, partition, q);
      const query = q as RecordPageQuery<Rec>;
      const load = () => fetchPage(index, partition, query);
      const hit = q.filter
        ? await load()
        : await pages(JSON.stringify([index, partition, q.after ?? null, q.limit, q.from ?? null, q.to ?? null]), load);
      const last = hit.recs.at(-1);
      return {
        items: hit.recs.slice() as never[],
        last: last ? INDEXES[index].key(last as never) : null,
        more: hit.more,
      };
    },
    count(index, partition) {
      if (!inTable(indexCollection(index))) return memory.count(index, partition);
      return counts(JSON.stringify([index, partition]), async () => {
        const [row] = await sql()<Array<{ n: number }>>`
          select count(*)::float8 as n from wcm_record_keys where ix = ${index} and part = ${partition}`;
        return row.n;
      });
    },
    async size(c) {
      if (!inTable(c)) return memory.size(c);
      const [row] = await sql()<
        Array<{ n: number }>
      >`select count(*)::float8 as n from wcm_records where collection = ${c}`;
      return row.n;
    },
    async *stream(c) {
      if (!inTable(c)) return yield* memory.stream(c);
      const desc = INDEXES_OF.get(c)?.[0].order === 'desc';
      // No index serves this order (migration 7): an export sorts the collection once, where
      // every write would pay for the index.
      const found = sql()<Array<{ body: string }>>`
        select body from wcm_records where collection = ${c}
        order by k ${desc ? sql()`desc` : sql()`asc`}, pos`.cursor(500);
      for await (const batch of found) for (const r of batch) yield parse(r.body) as never;
    },
    async taken(c, ids) {
      if (!inTable(c)) return memory.taken(c, ids);
      if (!ids.length) return [];
      const found = await sql()<Array<{ id: string }>>`
        select id from wcm_records where collection = ${c} and id = any(${ids as string[]})`;
      return found.map((r) => r.id);
    },
  };
}
