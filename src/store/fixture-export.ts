/*
 * The store as a fixture (docs/fixtures.md): tokens as `token_sha256`, grants with their current refresh
 * token, threads with their messages. An export imports back to the same state.
 */
import { FIXTURE_COLLECTIONS } from './fixture-schema.js';
import { isGrantToken, refreshesByGrant, refreshStateOf, withGrant, type StoredToken } from './oauth-tokens.js';
import type { CollectionName, OAuthGrantRecord, RecordTypes, TokenRecord } from './records.js';
import type { Store } from './store.js';
import { joinThread, type FullThread } from './threads.js';

/** The store as a fixture document, from memory (the JSON store; tests). Threads: given, else the state's. */
export function exportFixture(store: Store, threads?: FullThread[]): Record<string, unknown> {
  const out: Record<string, unknown> = { version: 1 };
  for (const c of FIXTURE_COLLECTIONS) {
    const recs =
      c === 'threads'
        ? (threads ?? store.valuesInOrder(c).map((t) => joinThread(t, store.get('thread_messages', t.id))))
        : store.valuesInOrder(c);
    if (!recs.length) continue;
    out[c] = recs.flatMap((r) => exported(store, c, r));
  }
  return out;
}

/** Above this many characters, a piece of the export is handed on. */
const PIECE = 1 << 20;

/**
 * The export's text in pieces, on either store: exactly `JSON.stringify(exportFixture(store), null, 2)`
 * and a line break, but never held whole (a million threads are past the longest string V8 makes),
 * each thread joined to its messages as it is written.
 */
export async function* exportText(store: Store): AsyncGenerator<string> {
  let piece = '{\n  "version": 1';
  for (const c of FIXTURE_COLLECTIONS) {
    if (!store.count(c)) continue;
    const recs: Iterable<unknown> = c === 'threads' ? joinedThreads(store) : store.valuesInOrder(c);
    let first = true;
    piece += `,\n  ${JSON.stringify(c)}: [`;
    for (const rec of recs)
      for (const out of exported(store, c, rec)) {
        // Nested two levels deep: each line of the record indented by four spaces.
        piece += `${first ? '' : ','}\n    ${JSON.stringify(out, null, 2).replace(/\n/g, '\n    ')}`;
        first = false;
        if (piece.length >= PIECE) {
          yield piece;
          piece = '';
        }
      }
    piece += first ? ']' : '\n  ]';
  }
  yield `${piece}\n}\n`;
}

/** The threads with their messages, in export order, one at a time (a big store's are not joined at once). */
function* joinedThreads(store: Store): Generator<FullThread> {
  for (const t of store.valuesInOrder('threads')) yield joinThread(t, store.get('thread_messages', t.id));
}

/** The export as a document (exportText parsed). */
export async function exportDocument(store: Store): Promise<Record<string, unknown>> {
  let text = '';
  for await (const piece of exportText(store)) text += piece;
  return JSON.parse(text) as Record<string, unknown>;
}

/** A record as fixtures hold it (a token whose grant is gone: none). */
function exported(store: Store, c: CollectionName, rec: unknown): unknown[] {
  if (c === 'tokens') return exportedToken(store, rec as StoredToken);
  if (c === 'oauth_grants') return [exportedGrant(store, rec as OAuthGrantRecord)];
  return [rec];
}

/** A token as fixtures hold it: `token_sha256` for the id, and a grant's token with its grant's members (none if the grant is gone). */
function exportedToken(store: Store, t: StoredToken): Array<Omit<TokenRecord, 'id'>> {
  let full: TokenRecord;
  if (isGrantToken(t)) {
    const grant = store.get('oauth_grants', t.grant_id);
    if (!grant) return [];
    full = withGrant(t, grant, store.get('oauth_apps', grant.client_id)?.name ?? grant.client_id);
  } else full = t;
  const { id: _id, token_sha256, ...rest } = full;
  return [{ token_sha256, ...rest }];
}

/** A grant as fixtures hold it: with its current refresh token, which its newest token response holds once it refreshed. */
function exportedGrant(store: Store, g: OAuthGrantRecord): OAuthGrantRecord {
  const r = refreshStateOf(store, g);
  return { ...g, refresh_sha256: r.sha256, refresh_expires_at: r.expires_at, refresh_generation: r.generation };
}

/** What exportScanned reads: every record of a collection in the JSON engine's order (PostgresEngine.scan). */
export interface Scannable {
  scan<C extends CollectionName>(c: C): Promise<Array<RecordTypes[C]>>;
}

/**
 * The export's text in pieces from a store that lists its records (the PostgreSQL engine): the
 * same text exportText gives for the same records, each collection read whole in turn.
 */
export async function* exportScanned(db: Scannable): AsyncGenerator<string> {
  const grants = new Map((await db.scan('oauth_grants')).map((g) => [g.id, g]));
  const apps = new Map((await db.scan('oauth_apps')).map((a) => [a.id, a]));
  // The newest token response of each grant (refreshesByGrant's first): its current refresh token.
  const newest = new Map<string, StoredToken>();
  const tokens = await db.scan('tokens');
  for (const t of tokens)
    for (const p of refreshesByGrant.partitions!(t as never)) {
      const top = newest.get(p);
      if (
        !top ||
        ((t as { generation?: number }).generation ?? -1) > ((top as { generation?: number }).generation ?? -1)
      )
        newest.set(p, t);
    }
  const view = {
    get: (c: CollectionName, id: string) => (c === 'oauth_grants' ? grants.get(id) : apps.get(id)),
    index: () => ({ entries: (grant: string) => (newest.has(grant) ? [{ rec: newest.get(grant)! }] : []) }),
  } as unknown as Store;
  let piece = '{\n  "version": 1';
  for (const c of FIXTURE_COLLECTIONS) {
    let recs: unknown[];
    if (c === 'threads') {
      const messages = new Map((await db.scan('thread_messages')).map((m) => [m.id, m]));
      recs = (await db.scan('threads')).map((t) => joinThread(t, messages.get(t.id)));
    } else recs = c === 'tokens' ? tokens : c === 'oauth_grants' ? [...grants.values()] : await db.scan(c);
    if (!recs.length) continue;
    let first = true;
    piece += `,\n  ${JSON.stringify(c)}: [`;
    for (const rec of recs)
      for (const out of exported(view, c, rec)) {
        piece += `${first ? '' : ','}\n    ${JSON.stringify(out, null, 2).replace(/\n/g, '\n    ')}`;
        first = false;
        if (piece.length >= PIECE) {
          yield piece;
          piece = '';
        }
      }
    piece += first ? ']' : '\n  ]';
  }
  yield `${piece}\n}\n`;
}
