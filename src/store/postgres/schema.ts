/*
 * The PostgreSQL engine's tables (docs/sandbox.md): for each collection, `wcm_c_<collection>`
 * (the record as `json`, keeping its members' order, and a column per unique index) and, for a
 * collection with indexes, `wcm_e_<collection>` (one row per index entry: index, partition, the
 * sort key as order-preserving hex, id), which keyset pages read. Every name is schema-qualified:
 * no search_path, no session state (safe behind PgBouncer in transaction mode).
 */
import type { Sql } from 'postgres';
import { INDEXES, LOOKUPS_OF, type IndexName } from '../indexes.js';
import { COLLECTIONS, type CollectionName } from '../records.js';
import type { IndexDef } from '../sorted-index.js';
import { SNAPSHOT_SAVED } from '../engine/interface.js';

/** The engine's schema version; a database recording a newer one is refused. */
export const ENGINE_VERSION = 1;

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

/** The statements that make version 1 of the schema (each `if not exists`). */
function version1(names: Names): string[] {
  const out: string[] = [];
  for (const c of COLLECTIONS) {
    const made = collectionTables(names, c, '');
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
): { tables: string[]; indexes: string[] } {
  const lookups = LOOKUPS_OF.get(c) ?? [];
  const nx = suffix ? '' : ' if not exists';
  const cols = [
    'id text not null',
    'doc json not null',
    ...lookups.map((l) => `${lookupColumn(l.name)} text`),
    `constraint ${ident(`wcm_c_${c}_pkey${suffix}`)} primary key (id)`,
  ];
  const tables = [`create table${nx} ${names.records(c, suffix)} (${cols.join(', ')})`];
  const indexes = lookups.map(
    (l) =>
      `create unique index${nx} ${ident(`wcm_c_${c}_${l.name}${suffix}`)} on ${names.records(c, suffix)} (${lookupColumn(l.name)})`,
  );
  if (INDEXES_BY_COLLECTION.has(c)) {
    tables.push(
      `create table${nx} ${names.entries(c, suffix)} (ix text not null, part text not null, key text collate "C" not null, id text not null, constraint ${ident(`wcm_e_${c}_pkey${suffix}`)} primary key (ix, part, key, id))`,
    );
    indexes.push(`create index${nx} ${ident(`wcm_e_${c}_id${suffix}`)} on ${names.entries(c, suffix)} (id)`);
  }
  return { tables, indexes };
}

/**
 * The statements that put a collection's fresh tables (collectionTables with `suffix`) in place of
 * its live ones: the live tables dropped, the fresh ones and their indexes renamed into the live
 * names. Run under the live tables' ACCESS EXCLUSIVE lock, in the transaction that made them.
 */
export function swapStatements(names: Names, c: CollectionName, suffix: string): string[] {
  const lookups = LOOKUPS_OF.get(c) ?? [];
  const tables = [`wcm_c_${c}`];
  const indexes = [`wcm_c_${c}_pkey`, ...lookups.map((l) => `wcm_c_${c}_${l.name}`)];
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
 * Brings `names.schema` up to ENGINE_VERSION: one transaction, recorded in wcm_engine_migrations.
 * Two processes starting at once both succeed (the one that loses a race tries again).
 */
export async function migrate(sql: Sql, names: Names, prepare: boolean): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await sql.begin(async (tx) => {
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
        if (have === ENGINE_VERSION) return;
        // An earlier wcm kept a base and a journal (wcm_base, wcm_journal) that every process replayed;
        // this engine reads tables of records. Nothing converts one into the other in place.
        const old = await tx.unsafe(`select to_regclass($1) as t`, [`${names.schema}.wcm_base`], { prepare });
        if (old[0].t !== null)
          throw new SchemaTooNewError(
            `The schema ${names.schema} holds a store written by an earlier wcm (its tables wcm_base and wcm_journal). ` +
              `Export it with that version (\`wcm local export backup.json --store URL\`), then import the file into ` +
              `an empty schema with this one (\`wcm local import backup.json --store 'URL?schema=NEW'\`).`,
          );
        for (const stmt of version1(names)) await tx.unsafe(stmt, [], { prepare });
        await tx.unsafe(`insert into ${names.migrations} (version) values ($1)`, [ENGINE_VERSION], { prepare });
      });
      return;
    } catch (err) {
      if (attempt < 5 && RACES.has((err as { code?: string }).code ?? '')) {
        await new Promise((r) => setTimeout(r, 20 + Math.random() * 80));
        continue;
      }
      throw err;
    }
  }
}
