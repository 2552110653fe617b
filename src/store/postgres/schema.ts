/*
 * The PostgreSQL engine's tables (docs/sandbox.md): for each collection, `wcm_c_<collection>`
 * (the record as `json`, keeping its members' order, and a column per unique index) and, for a
 * collection with indexes, `wcm_e_<collection>` (one row per index entry: index, partition, the
 * sort key as order-preserving hex, id), which keyset pages read. A collection with searched
 * fields (search.ts) has a `search_text` column too, the text its searches narrow on, GIN-indexed
 * with pg_trgm when the database has that extension. Every name is schema-qualified: no
 * search_path, no session state (safe behind PgBouncer in transaction mode).
 */
import type { Sql, TransactionSql } from 'postgres';
import { INDEXES, LOOKUPS_OF, type IndexName } from '../indexes.js';
import { COLLECTIONS, type CollectionName } from '../records.js';
import type { IndexDef } from '../sorted-index.js';
import { SNAPSHOT_SAVED } from '../engine/interface.js';
import { isSearched, searchText } from '../search.js';

/** The engine's schema version; a database recording a newer one is refused. 2: `search_text`. */
export const ENGINE_VERSION = 2;

/** A quoted identifier (the names here are the schema map's, and a checked schema name). */
export const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** Each collection's indexes (INDEXES), by collection. */
export const INDEXES_BY_COLLECTION: ReadonlyMap<
  CollectionName,
  ReadonlyArray<IndexDef & { name: IndexName }>
> = (() => {
  const out = new Map<CollectionName, Array<IndexDef & { name: IndexName }>>();
  for (const def of Object.values(INDEXES) as Array<IndexDef & { name: IndexName }>)
    out.set(def.collection, [...(out.get(def.collection) ?? []), def]);
  return out;
})();

/** The qualified names of one schema's tables. */
export class Names {
  readonly migrations: string;
  constructor(readonly schema: string) {
    this.migrations = `${ident(schema)}.wcm_engine_migrations`;
  }
  /** A collection's table (with `suffix`: a load's fresh table, made beside it and renamed into its name). */
  records(c: CollectionName, suffix = ''): string {
    return `${ident(this.schema)}.${ident(`wcm_c_${c}${suffix}`)}`;
  }
  entries(c: CollectionName, suffix = ''): string {
    return `${ident(this.schema)}.${ident(`wcm_e_${c}${suffix}`)}`;
  }
  /** An object of the schema by its unqualified name. */
  qualified(name: string): string {
    return `${ident(this.schema)}.${ident(name)}`;
  }
  /** The named snapshots' copies of a collection's table and of its index entries (snapshotTables). */
  savedRecords(c: CollectionName): string {
    return `${ident(this.schema)}.${ident(`wcm_s_${c}`)}`;
  }
  savedEntries(c: CollectionName): string {
    return `${ident(this.schema)}.${ident(`wcm_se_${c}`)}`;
  }
}

/** A unique index's column. */
export const lookupColumn = (name: string): string => ident(`lk_${name}`);

/** A searched collection's column of search text (search.ts, searchText). */
export const SEARCH_COLUMN = 'search_text';

/** The columns of a collection's records table, in the order recordValues gives them. */
export function recordColumns(c: CollectionName): string[] {
  const lookups = LOOKUPS_OF.get(c) ?? [];
  return ['id', 'doc', ...lookups.map((l) => lookupColumn(l.name)), ...(isSearched(c) ? [SEARCH_COLUMN] : [])];
}

/** A record's row in its table: id, the document, its unique keys and, when searched, its search text. */
export function recordValues(c: CollectionName, rec: { id: string }): Array<string | null> {
  const lookups = LOOKUPS_OF.get(c) ?? [];
  return [
    rec.id,
    JSON.stringify(rec),
    ...lookups.map((l) => l.key(rec as never)),
    ...(isSearched(c) ? [searchText(c, rec as never)] : []),
  ];
}

/**
 * Where pg_trgm is installed (its schema), or null: what a search index's operator class is
 * qualified with. `schema.ts` makes search indexes only when it is there.
 */
export type Trigrams = string | null;

/** The statements that make the current version of the schema (each `if not exists`). */
function current(names: Names, trgm: Trigrams): string[] {
  const out: string[] = [];
  for (const c of COLLECTIONS) {
    const made = collectionTables(names, c, '', trgm);
    out.push(...made.tables, ...made.indexes);
  }
  out.push(...snapshotTables(names));
  return out;
}

/** The suffix of a load's fresh tables and their indexes (engine.ts, load and restore). */
export const STAGED = '__new';

/**
 * The statements that make one collection's tables: `tables` (records, with the primary key, and
 * for a collection with indexes its entries) and then `indexes` (the unique lookup indexes and the
 * entries' id index). With `suffix`, every table, constraint and index name carries it: a load
 * makes the fresh tables by this same code beside the live ones, fills them, makes their indexes,
 * and renames them into the live names (swapNames). Names given explicitly are the defaults
 * PostgreSQL gives (`<table>_pkey`), so schemas made before keep the same names.
 */
export function collectionTables(
  names: Names,
  c: CollectionName,
  suffix: string,
  trgm: Trigrams,
): { tables: string[]; indexes: string[] } {
  const lookups = LOOKUPS_OF.get(c) ?? [];
  const nx = suffix ? '' : ' if not exists';
  const cols = [
    'id text not null',
    'doc json not null',
    ...lookups.map((l) => `${lookupColumn(l.name)} text`),
    ...(isSearched(c) ? [`${SEARCH_COLUMN} text not null`] : []),
    `constraint ${ident(`wcm_c_${c}_pkey${suffix}`)} primary key (id)`,
  ];
  const tables = [`create table${nx} ${names.records(c, suffix)} (${cols.join(', ')})`];
  const indexes = lookups.map(
    (l) =>
      `create unique index${nx} ${ident(`wcm_c_${c}_${l.name}${suffix}`)} on ${names.records(c, suffix)} (${lookupColumn(l.name)})`,
  );
  if (isSearched(c) && trgm) indexes.push(searchIndex(names, c, suffix, trgm));
  if (INDEXES_BY_COLLECTION.has(c)) {
    tables.push(
      `create table${nx} ${names.entries(c, suffix)} (ix text not null, part text not null, key text collate "C" not null, id text not null, constraint ${ident(`wcm_e_${c}_pkey${suffix}`)} primary key (ix, part, key, id))`,
    );
    indexes.push(`create index${nx} ${ident(`wcm_e_${c}_id${suffix}`)} on ${names.entries(c, suffix)} (id)`);
  }
  return { tables, indexes };
}

/** The GIN trigram index on a searched collection's search text (LIKE '%…%' reads it). */
function searchIndex(names: Names, c: CollectionName, suffix: string, trgm: string): string {
  const nx = suffix ? '' : ' if not exists';
  return `create index${nx} ${ident(`wcm_c_${c}_search${suffix}`)} on ${names.records(c, suffix)} using gin (${SEARCH_COLUMN} ${ident(trgm)}.gin_trgm_ops)`;
}

/**
 * The statements that put a collection's fresh tables (collectionTables with `suffix`) in place of
 * its live ones: the live tables dropped, the fresh ones and their indexes renamed into the live
 * names. Run under the live tables' ACCESS EXCLUSIVE lock, in the transaction that made them.
 */
export function swapStatements(names: Names, c: CollectionName, suffix: string, trgm: Trigrams): string[] {
  const lookups = LOOKUPS_OF.get(c) ?? [];
  const tables = [`wcm_c_${c}`];
  const indexes = [`wcm_c_${c}_pkey`, ...lookups.map((l) => `wcm_c_${c}_${l.name}`)];
  if (isSearched(c) && trgm) indexes.push(`wcm_c_${c}_search`);
  if (INDEXES_BY_COLLECTION.has(c)) {
    tables.push(`wcm_e_${c}`);
    indexes.push(`wcm_e_${c}_pkey`, `wcm_e_${c}_id`);
  }
  return [
    `drop table ${tables.map((t) => names.qualified(t)).join(', ')}`,
    ...tables.map((t) => `alter table ${names.qualified(t + suffix)} rename to ${ident(t)}`),
    ...indexes.map((i) => `alter index ${names.qualified(i + suffix)} rename to ${ident(i)}`),
  ];
}

/**
 * The named snapshots' tables: for each collection a snapshot holds (SNAPSHOT_SAVED), `wcm_s_<c>`
 * (its records as the snapshot `snap` saved them, unique columns and all) and, for one with
 * indexes, `wcm_se_<c>` (their index entries): a restore copies them back with `insert … select`,
 * nothing computed again. The list of snapshots is the collection `named_snapshots`.
 */
function snapshotTables(names: Names): string[] {
  const out: string[] = [];
  for (const c of SNAPSHOT_SAVED) {
    const lookups = LOOKUPS_OF.get(c) ?? [];
    const cols = ['snap text not null', 'id text not null', 'doc json not null'];
    for (const l of lookups) cols.push(`${lookupColumn(l.name)} text`);
    if (isSearched(c)) cols.push(`${SEARCH_COLUMN} text not null`);
    out.push(`create table if not exists ${names.savedRecords(c)} (${cols.join(', ')}, primary key (snap, id))`);
    if (!INDEXES_BY_COLLECTION.has(c)) continue;
    out.push(
      `create table if not exists ${names.savedEntries(c)} (snap text not null, ix text not null, part text not null, key text collate "C" not null, id text not null, primary key (snap, ix, part, key, id))`,
    );
  }
  return out;
}

/** Errors of two processes making the same objects at once: the loser tries again, and finds them made. */
const RACES = new Set(['23505', '42P07', '42710', '40001', '40P01']);

/** A schema this binary must not use: made by a newer wcm, or holding the store of an earlier one. */
export class SchemaTooNewError extends Error {}

/**
 * pg_trgm's schema: installed now if it is not yet and this role may (a trusted extension since
 * PostgreSQL 13: a database owner may), else null, and searches scan without an index.
 */
async function trigrams(tx: TransactionSql, prepare: boolean): Promise<Trigrams> {
  const find = async () =>
    (
      await tx.unsafe(
        `select n.nspname as s from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`,
        [],
        { prepare },
      )
    )[0]?.s as string | undefined;
  const found = await find();
  if (found) return found;
  try {
    await tx.savepoint((s) => s.unsafe(`create extension if not exists pg_trgm`, [], { prepare }));
  } catch {
    return null;
  }
  return (await find()) ?? null;
}

/**
 * Version 1 to 2: each searched collection's table (and its named snapshots' copy) gets its
 * `search_text`, computed here from each record (search.ts: the same rule as the JSON engine, so
 * SQL could not compute it), a thousand rows a statement.
 */
async function addSearchText(tx: TransactionSql, names: Names, prepare: boolean): Promise<void> {
  for (const c of COLLECTIONS) {
    if (!isSearched(c)) continue;
    const tables: Array<[string, boolean]> = [[names.records(c), false]];
    if (SNAPSHOT_SAVED.has(c)) tables.push([names.savedRecords(c), true]);
    for (const [table, saved] of tables) {
      await tx.unsafe(`alter table ${table} add column if not exists ${SEARCH_COLUMN} text`, [], { prepare });
      let snap = '';
      let id = '';
      for (;;) {
        const rows = saved
          ? await tx.unsafe(
              `select snap, id, doc::text as doc from ${table} where (snap, id) > ($1, $2) order by snap, id limit 1000`,
              [snap, id],
              { prepare },
            )
          : await tx.unsafe(
              `select '' as snap, id, doc::text as doc from ${table} where id > $1 order by id limit 1000`,
              [id],
              { prepare },
            );
        if (!rows.length) break;
        const texts = rows.map((r) => searchText(c, JSON.parse(r.doc as string)));
        await tx.unsafe(
          `update ${table} t set ${SEARCH_COLUMN} = u.s from unnest($1::text[], $2::text[], $3::text[]) as u(snap, id, s)` +
            ` where t.id = u.id${saved ? ' and t.snap = u.snap' : ''}`,
          [rows.map((r) => r.snap as string), rows.map((r) => r.id as string), texts],
          { prepare },
        );
        snap = rows[rows.length - 1].snap as string;
        id = rows[rows.length - 1].id as string;
      }
      await tx.unsafe(`alter table ${table} alter column ${SEARCH_COLUMN} set not null`, [], { prepare });
    }
  }
}

/**
 * Brings `names.schema` up to ENGINE_VERSION: one transaction, recorded in wcm_engine_migrations.
 * Two processes starting at once both succeed (the one that loses a race tries again). Resolves
 * with where pg_trgm is (Trigrams); with it, each searched table has its search index (made now
 * if the extension came after the table).
 */
export async function migrate(sql: Sql, names: Names, prepare: boolean): Promise<Trigrams> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await sql.begin(async (tx) => {
        await tx.unsafe(`create schema if not exists ${ident(names.schema)}`, [], { prepare });
        await tx.unsafe(
          `create table if not exists ${names.migrations} (version int primary key, applied_at timestamptz not null default now())`,
          [],
          { prepare },
        );
        const rows = await tx.unsafe(`select coalesce(max(version), 0) as v from ${names.migrations}`, [], {
          prepare,
        });
        const have = Number(rows[0].v);
        if (have > ENGINE_VERSION)
          throw new SchemaTooNewError(
            `The schema ${names.schema} was made by a newer wcm (its store version ${have}; this one knows ${ENGINE_VERSION}): upgrade wcm.`,
          );
        const trgm = await trigrams(tx, prepare);
        if (have < ENGINE_VERSION) {
          if (have === 0) await makeSchema(tx, names, prepare, trgm);
          else await addSearchText(tx, names, prepare);
          await tx.unsafe(`insert into ${names.migrations} (version) values ($1)`, [ENGINE_VERSION], { prepare });
        }
        if (trgm)
          for (const c of COLLECTIONS) {
            if (!isSearched(c)) continue;
            const made = await tx.unsafe(`select to_regclass($1) as t`, [`${names.schema}.wcm_c_${c}_search`], {
              prepare,
            });
            if (made[0].t === null) await tx.unsafe(searchIndex(names, c, '', trgm), [], { prepare });
          }
        return trgm;
      });
    } catch (err) {
      if (attempt < 5 && RACES.has((err as { code?: string }).code ?? '')) {
        await new Promise((r) => setTimeout(r, 20 + Math.random() * 80));
        continue;
      }
      throw err;
    }
  }
}

/** A schema from nothing, at ENGINE_VERSION (unless it holds an earlier wcm's store). */
async function makeSchema(tx: TransactionSql, names: Names, prepare: boolean, trgm: Trigrams): Promise<void> {
  // An earlier wcm kept a base and a journal (wcm_base, wcm_journal) that every process replayed;
  // this engine reads tables of records. Nothing converts one into the other in place.
  const old = await tx.unsafe(`select to_regclass($1) as t`, [`${names.schema}.wcm_base`], { prepare });
  if (old[0].t !== null)
    throw new SchemaTooNewError(
      `The schema ${names.schema} holds a store written by an earlier wcm (its tables wcm_base and wcm_journal). ` +
        `Export it with that version (\`wcm local export backup.json --store URL\`), then import the file into ` +
        `an empty schema with this one (\`wcm local import backup.json --store 'URL?schema=NEW'\`).`,
    );
  for (const stmt of current(names, trgm)) await tx.unsafe(stmt, [], { prepare });
}
