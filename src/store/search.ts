/*
 * Text search on `page` (PageQuery.search): which fields of a collection's records are searched,
 * and the one matching rule both engines apply. The JSON engine tests each record in order with
 * `matchesSearch`. PostgreSQL keeps each record's `searchText` in a column beside it, written with
 * the record, and narrows the scan in SQL (a LIKE over that column, GIN-indexed with pg_trgm when
 * the database has it); the rows it finds are then tested with `matchesSearch` too, so what either
 * engine answers is decided by this one function.
 */
import type { CollectionName, RecordTypes } from './records.js';

/** The fields each searchable collection is searched on, in order. */
export const SEARCHED = {
  // Contact name, email, subject and the last message (not earlier messages).
  threads: (t: RecordTypes['threads']) => [t.contact.name, t.contact.email, t.subject, t.last_message_body],
} satisfies { [C in CollectionName]?: (rec: RecordTypes[C]) => Array<string | null> };

export type SearchedCollection = keyof typeof SEARCHED;

export const isSearched = (c: CollectionName): c is SearchedCollection => Object.hasOwn(SEARCHED, c);

/**
 * What a field and a query are compared as: lower-cased by JavaScript's default case mapping
 * (locale-independent, the same on every machine), without NUL characters (PostgreSQL's text holds
 * none, so they are dropped from the query and the fields alike).
 */
export const searchForm = (s: string): string => s.toLowerCase().replace(/\u0000/g, '');

/**
 * Each field's search form, cached per record: records are frozen and replaced whole, so a
 * record's fields never change under the cache.
 */
const forms = new WeakMap<object, string[]>();
function searchForms(c: SearchedCollection, rec: RecordTypes[SearchedCollection]): string[] {
  let out = forms.get(rec);
  if (out === undefined) {
    out = SEARCHED[c](rec).map((v) => searchForm(v ?? ''));
    forms.set(rec, out);
  }
  return out;
}

/**
 * The rule: a record matches when the search form of `needle` is a substring of the search form of
 * one of its fields (never across two fields). An empty needle matches every record. The
 * predicate is made once per search: the needle's form is computed once, each record's once.
 */
export function matchesSearch(
  c: SearchedCollection,
  needle: string,
): (rec: RecordTypes[SearchedCollection]) => boolean {
  const q = searchForm(needle);
  if (!q) return () => true;
  return (rec) => searchForms(c, rec).some((f) => f.includes(q));
}

/**
 * The text PostgreSQL keeps of a record for search: the fields' search forms, one per line. A
 * record that matches always holds its needle's search form in this text (so SQL may narrow with
 * it); a needle with a line break could also be found across two fields here, which is why the
 * rows found are tested with `matchesSearch` again.
 */
export const searchText = (c: SearchedCollection, rec: RecordTypes[SearchedCollection]): string =>
  searchForms(c, rec).join('\n');

/** A lone surrogate: the text PostgreSQL receives has U+FFFD in its place (UTF-8 holds none). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The LIKE pattern (escape character `\`) that narrows a search in SQL: the needle's search form
 * with `%`, `_` and `\` escaped, between `%`s. None for a needle that matches everything, or one
 * holding a lone surrogate (sent as U+FFFD, it could miss a field holding half of a pair); such a
 * needle is tested on every record by `matchesSearch` alone.
 */
export function likePattern(needle: string): string | null {
  const q = searchForm(needle);
  if (!q || LONE_SURROGATE.test(q)) return null;
  return `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}
