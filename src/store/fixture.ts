/*
 * Fixtures into store records and back: the cross-record checks (duplicate ids, dangling
 * references), import and export. The schemas are in fixture-schema.ts.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  FixtureCollector,
  FixtureError,
  jsonPath,
  REFERENCES,
  type CheckedFixture,
  type RecordSink,
} from './fixture-check.js';
import { FIXTURE_COLLECTIONS, FixtureSchema } from './fixture-schema.js';
import type { LazyLines } from './lazy-lines.js';
import type { CollectionName, RecordTypes, ThreadRecord, TokenRecord, Tx } from './records.js';
import type { Store } from './store.js';
import { putMessageLines, putThread, sortedMessages, type FullThread } from './threads.js';

export { FIXTURE_COLLECTIONS, FixtureSchema, type Fixture } from './fixture-schema.js';
export { FixtureError } from './fixture-check.js';
export { exportDocument, exportFixture, exportText } from './fixture-export.js';

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * A fixture's records; threads still carry their messages (the store keeps them apart), or were
 * packed as the file was read (packThread): the thread's record, its messages lines of `messages`.
 */
export type Records = { [C in Exclude<(typeof FIXTURE_COLLECTIONS)[number], 'threads'>]: RecordTypes[C][] } & {
  threads: Array<FullThread | ThreadRecord>;
  messages?: LazyLines;
  /** Records written as the file was read (pg/table-import.ts), not in their arrays: how many of each collection. */
  streamed?: Partial<Record<CollectionName, number>>;
};

/** Records that exist already (the store, plus fixture files read before this one). */
export interface RecordLookup {
  get(c: CollectionName, id: string): unknown;
}

/**
 * Validates a parsed fixture and turns it into store records: unknown members, duplicate ids and
 * dangling references are reported with their JSON paths. `existing` supplies records already in
 * the store that references may point to (and ids must not collide with).
 */
export function parseFixture(input: unknown, source: string, existing?: RecordLookup): Records {
  if (!input || typeof input !== 'object' || Array.isArray(input)) {
    const issues = FixtureSchema.safeParse(input).error?.issues ?? [];
    throw new FixtureError(
      source,
      issues.map((i) => ({ path: jsonPath(i.path), message: i.message })),
    );
  }
  const collector = new FixtureCollector(source);
  for (const [name, value] of Object.entries(input)) {
    if (!Array.isArray(value)) collector.member(name, value);
    else {
      collector.array(name);
      value.forEach((v, i) => collector.element(name, i, v));
    }
  }
  return checkFixture(doneWithCrossProblems(collector, existing), source, existing);
}

/**
 * The collector's fixture; when its schema found problems, the checks across records run too on
 * what passed (FixtureError.partial), and the error reports both: one pass, every problem.
 */
export function doneWithCrossProblems(
  collector: FixtureCollector,
  existing?: RecordLookup,
  streamed?: RecordSink,
): CheckedFixture {
  try {
    return collector.done();
  } catch (err) {
    if (!(err instanceof FixtureError) || !err.partial) throw err;
    const more = crossRecordProblems(err.partial, existing, streamed);
    if (!more.length) throw err;
    throw new FixtureError(err.source, [...err.problems, ...more].slice(0, 20), err.total + more.length);
  }
}

/**
 * The checks across records of a fixture that passed its schema, and its records as the store
 * keeps them. `streamed`: the records it takes went there as the file was read, checked there.
 */
export function checkFixture(
  f: CheckedFixture,
  source: string,
  existing?: RecordLookup,
  streamed?: RecordSink,
): Records {
  const problems = crossRecordProblems(f, existing, streamed);
  if (problems.length) throw new FixtureError(source, problems);
  return fixtureRecords(f, streamed);
}

/** Duplicate ids, ids the store holds already, and dangling references, in file order. */
function crossRecordProblems(
  f: CheckedFixture,
  existing?: RecordLookup,
  streamed?: RecordSink,
): Array<{ path: string; message: string }> {
  const problems: Array<{ path: string; message: string }> = [];
  // Per collection, each id's last position. Paths are spelled only for problems (100,000 threads).
  const ids = new Map<string, Map<string, number>>();
  const where = (c: string, i: number) => `$.${c}[${i}]${c === 'tokens' ? '' : '.id'}`;
  for (const c of FIXTURE_COLLECTIONS) {
    const at = new Map<string, number>();
    ids.set(c, at);
    (f[c] ?? []).forEach((rec: { id?: string; token?: string; token_sha256?: string }, i: number) => {
      const id = c === 'tokens' ? tokenId(rec.token ? hashToken(rec.token) : rec.token_sha256!) : rec.id!;
      const before = at.get(id);
      if (before !== undefined)
        problems.push({
          path: where(c, i),
          message: `duplicate ${c === 'tokens' ? 'token' : `id \`${id}\``} (also at ${where(c, before)})`,
        });
      else if (existing?.get(c, id))
        problems.push({ path: where(c, i), message: `id \`${id}\` already exists in the store` });
      at.set(id, i);
    });
    if (streamed?.takes(c)) for (const p of streamed.idProblems(c)) problems.push(p);
  }
  const has = (c: CollectionName, id: string) =>
    ids.get(c)?.has(id) || !!streamed?.has(c, id) || !!existing?.get(c, id);
  const ref = (c: CollectionName, id: string | null | undefined, path: () => string) => {
    if (id != null && !has(c, id))
      problems.push({ path: path(), message: `refers to ${c} \`${id}\`, which does not exist` });
  };
  f.workspaces?.forEach((w, i) =>
    w.members.forEach((m, j) => ref('users', m.user_id, () => `$.workspaces[${i}].members[${j}].user_id`)),
  );
  f.tokens?.forEach((t, i) => {
    ref('users', t.user_id, () => `$.tokens[${i}].user_id`);
    t.workspace_ids?.forEach((w, j) => ref('workspaces', w, () => `$.tokens[${i}].workspace_ids[${j}]`));
    if (t.grant_id !== undefined) ref('oauth_grants', t.grant_id, () => `$.tokens[${i}].grant_id`);
  });
  f.oauth_apps?.forEach((a, i) => ref('workspaces', a.workspace_id, () => `$.oauth_apps[${i}].workspace_id`));
  f.oauth_grants?.forEach((g, i) => {
    ref('users', g.user_id, () => `$.oauth_grants[${i}].user_id`);
    if (g.client_id !== 'wcm-cli') ref('oauth_apps', g.client_id, () => `$.oauth_grants[${i}].client_id`);
    g.workspace_ids.forEach((w, j) => ref('workspaces', w, () => `$.oauth_grants[${i}].workspace_ids[${j}]`));
  });
  for (const [c, field, target] of REFERENCES) {
    (f[c as keyof CheckedFixture] as Array<Record<string, string | null>> | undefined)?.forEach((r, i) =>
      ref(target as CollectionName, r[field], () => `$.${c}[${i}].${field}`),
    );
    if (streamed?.takes(c))
      for (const p of streamed.refProblems(c, field, target, (id) => has(target as CollectionName, id)))
        problems.push(p);
  }
  return problems;
}

/** A fixture's records as the store keeps them, once every check passed. */
function fixtureRecords(f: CheckedFixture, streamed?: RecordSink): Records {
  const tokens: TokenRecord[] = (f.tokens ?? []).map((t) => {
    const sha = t.token ? hashToken(t.token) : t.token_sha256!;
    const rec: TokenRecord = {
      id: tokenId(sha),
      token_sha256: sha,
      user_id: t.user_id,
      name: t.name,
      abilities: t.abilities,
      expires_at: t.expires_at,
      revoked_at: t.revoked_at,
    };
    if (t.audience !== undefined) rec.audience = t.audience;
    if (t.workspace_ids !== undefined) rec.workspace_ids = t.workspace_ids;
    if (t.grant_id !== undefined) rec.grant_id = t.grant_id;
    if (t.client_id !== undefined) rec.client_id = t.client_id;
    return rec;
  });
  return {
    users: f.users ?? [],
    workspaces: f.workspaces ?? [],
    tokens,
    listings: f.listings ?? [],
    forms: (f.forms ?? []) as RecordTypes['forms'][],
    pages: (f.pages ?? []) as RecordTypes['pages'][],
    knowledge_lists: f.knowledge_lists ?? [],
    articles: (f.articles ?? []).map(articleRecord),
    threads: (f.threads ?? []).map((t) => ('messages' in t ? sortedMessages(t as FullThread) : t)),
    ...(streamed && {
      streamed: Object.fromEntries(
        FIXTURE_COLLECTIONS.filter((c) => streamed.takes(c)).map((c) => [c, streamed.count(c)]),
      ),
    }),
    bookings: f.bookings ?? [],
    voice_interactions: f.voice_interactions ?? [],
    offers: (f.offers as RecordTypes['offers'][]) ?? [],
    agents: f.agents ?? [],
    orders: (f.orders ?? []) as RecordTypes['orders'][],
    analytics_events: f.analytics_events ?? [],
    // Secrets in clear are stored hashed, like tokens; member order fixed so exports round-trip.
    oauth_apps: (f.oauth_apps ?? []).map((a) => ({
      id: a.id,
      name: a.name,
      type: a.type,
      redirect_uris: a.redirect_uris,
      client_secret_sha256: a.client_secret ? hashToken(a.client_secret) : (a.client_secret_sha256 ?? null),
      workspace_id: a.workspace_id,
      // Who made the app through the API (only they may remove it): kept, in the order newApp writes it.
      ...(a.created_by != null ? { created_by: a.created_by } : {}),
      created_at: a.created_at,
    })),
    oauth_grants: f.oauth_grants ?? [],
  };
}

type FixtureArticle = NonNullable<CheckedFixture['articles']>[number];

/**
 * An article as the store keeps it. Fixed member order (id first, whether or not the fixture gave
 * one): an export must import back to the byte-identical export.
 */
export function articleRecord(a: FixtureArticle): RecordTypes['articles'] {
  return {
    id: a.id,
    list_id: a.list_id,
    versions: [...a.versions]
      .sort((x, y) => x.number - y.number)
      .map((v) => ({
        id: v.id ?? versionId(a.id, v.number),
        number: v.number,
        title: v.title,
        body: v.body,
        published: v.published,
        restored_from: v.restored_from,
        created_at: v.created_at,
      })),
  };
}

export function tokenId(sha256: string): string {
  return `tok_${sha256.slice(0, 16)}`;
}

/** A stable id for a fixture version given without one, so re-imports agree. */
function versionId(articleId: string, n: number): string {
  const h = createHash('sha256').update(`${articleId}:${n}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Puts parsed fixture records (of one or more files) into the store, all or nothing: a large load
 * as the store's snapshot (Store.bulk), a small one as one durable transaction.
 */
export async function importRecords(store: Store, ...sets: Records[]): Promise<Record<string, number>> {
  let counts: Record<string, number> = {};
  await store.loadMany(recordCount(sets), (tx) => void (counts = putRecords(tx, sets)));
  return counts;
}

/** How many records fixture sets hold (threads count twice: the thread and its messages). */
export function recordCount(sets: ReadonlyArray<Records>): number {
  let n = 0;
  for (const records of sets) for (const c of FIXTURE_COLLECTIONS) n += records[c].length * (c === 'threads' ? 2 : 1);
  return n;
}

/** Puts parsed fixture records into a transaction; returns how many of each collection. */
export function putRecords(tx: Tx, sets: ReadonlyArray<Records>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const records of sets) {
    for (const c of FIXTURE_COLLECTIONS) {
      if (c === 'threads')
        for (const t of records.threads) {
          if ('messages' in t) putThread(tx, t);
          else tx.put('threads', t);
        }
      else for (const rec of records[c]) tx.put(c, rec as never);
      const n = records[c].length + (records.streamed?.[c] ?? 0);
      if (n) counts[c] = (counts[c] ?? 0) + n;
    }
    if (records.messages) putMessageLines(tx, records.messages);
  }
  return counts;
}

/**
 * A lookup over the store plus already-parsed fixture records, so later files may refer to earlier
 * ones. Each collection of the earlier files is indexed by id on its first lookup (a big file after
 * another would otherwise search it once per record).
 */
export function lookupWith(store: RecordLookup, sets: ReadonlyArray<Records>): RecordLookup {
  const byId = new Map<string, Map<string, unknown>>();
  const indexed = (c: CollectionName) => {
    let m = byId.get(c);
    if (!m) {
      m = new Map();
      for (const set of sets)
        for (const r of (set as unknown as Record<string, Array<{ id: string }>>)[c] ?? [])
          if (!m.has(r.id)) m.set(r.id, r);
      byId.set(c, m);
    }
    return m;
  };
  return {
    get(c, id) {
      const hit = store.get(c, id);
      return hit !== undefined ? hit : indexed(c).get(id);
    },
  };
}

export const newId = () => randomUUID();
