import type { Channel, ThreadView } from '../contract/enums.js';
import { threadFilterPartition, type ThreadKeys } from './indexes.js';
import type { CollectionName, MessageRecord, RecordTypes, ThreadRecord } from './records.js';
import { compareKeys, scanEntries, type SortedIndex, type SortKey } from './sorted-index.js';
import { joinThread, type FullThread } from './threads.js';

/** What a thread list asks for: one workspace, one view, maybe a channel and a search. */
export interface ThreadFilter {
  workspace: string;
  view: ThreadView;
  channel?: Channel;
  /** In its search form already (searchForm); '' or absent for none. */
  q?: string;
}

/** One page: the items, the sort key of the last one, and whether another matching thread follows. */
export interface ThreadSlice<R> {
  items: R[];
  last: SortKey | null;
  more: boolean;
}

/**
 * The threads area's repository: the one seam its handlers and pages read threads through. The
 * JSON store answers from memory (its indexes); PostgreSQL from the `wcm_threads` table with
 * keyset queries, so a process holds none of them (src/store/pg/threads.ts). Threads are written
 * only by loads (seed, import, reset), through the store's transactions.
 */
export interface ThreadRepository {
  /** Threads in list order (last message newest first, then id) strictly after `after`. */
  page<R>(f: ThreadFilter, after: SortKey | null, limit: number, map: (t: ThreadRecord) => R): Promise<ThreadSlice<R>>;
  get(id: string): Promise<{ thread: ThreadRecord; messages: MessageRecord[] } | undefined>;
  /** How many threads a view (and channel) of a workspace lists. */
  count(workspace: string, view: ThreadView, channel?: Channel): Promise<number>;
  /** How many threads the store holds. */
  size(): Promise<number>;
  /** A workspace's threads of this contact (same id, or same e-mail ignoring case), newest first. */
  ofContact(
    workspace: string,
    contact: { id: string; email: string | null },
    except: string,
    max: number,
  ): Promise<ThreadRecord[]>;
  /** Every thread with its messages, in the order exports list them, a few at a time. */
  stream(): AsyncIterable<FullThread>;
  /** Which of these ids are taken already. */
  taken(ids: readonly string[]): Promise<string[]>;
}

/** A thread's sort key in lists: [last_message_at, id], newest first, threads without messages last. */
export const threadKey = (t: Pick<ThreadRecord, 'last_message_at' | 'id'>): SortKey => [t.last_message_at, t.id];

/**
 * What `q` searches: contact name, email, subject and the last message (not earlier messages),
 * lower-cased, NUL between fields so a query never matches across two of them. PostgreSQL keeps
 * the fields apart (an array column) and searches each, so both stores match the same threads.
 */
export function searchText(t: ThreadRecord): string {
  return searchFields(t).join('\u0000');
}

/**
 * What `q` is matched as: lower-cased, without NUL characters. PostgreSQL's text holds no NUL, so
 * both stores drop them from the query and the fields alike and match the same threads.
 */
export const searchForm = (s: string): string => s.toLowerCase().replace(/\u0000/g, '');

/** The fields `q` searches, each in its search form. */
export const searchFields = (t: ThreadRecord): string[] =>
  [t.contact.name, t.contact.email, t.subject, t.last_message_body].map((v) => searchForm(v ?? ''));

/** Records are frozen and replaced whole, so the search text can be cached per record. */
const haystacks = new WeakMap<ThreadRecord, string>();
function haystack(t: ThreadRecord): string {
  let s = haystacks.get(t);
  if (s === undefined) haystacks.set(t, (s = searchText(t)));
  return s;
}

/** What the memory repository reads of the store (view.ts), named here so the two need not import each other. */
interface MemorySource {
  get<C extends CollectionName>(c: C, id: string): RecordTypes[C] | undefined;
  values(c: 'threads'): Iterable<ThreadRecord>;
  valuesInOrder(c: 'threads'): ThreadRecord[];
  count(c: 'threads'): number;
  index(name: 'threadsByFilter'): SortedIndex<ThreadKeys>;
}

/**
 * What `page` made of each index entry, per map function (which must depend on the record alone).
 * An entry (a thread's index stub, or its record) is replaced in the index whenever the thread is
 * written, so a value never outlives the version it was made from; a page of items made before
 * reads no record (100,000 threads: a lookup each cost the filtered page 8% of its CPU).
 */
const mapped = new WeakMap<object, WeakMap<ThreadKeys, unknown>>();

/** The JSON store's threads: its in-memory index (`threadsByFilter`) and records. */
export function memoryThreads(store: MemorySource): ThreadRepository {
  const read = (id: string) => store.get('threads', id)!;
  return {
    async page<R>(f: ThreadFilter, after: SortKey | null, limit: number, map: (t: ThreadRecord) => R) {
      // View and channel pick one pre-filtered partition; only `q` is checked per record, and the
      // scan stops once the page is full.
      const index = store.index('threadsByFilter');
      const entries = index.entries(threadFilterPartition(f.workspace, f.view, f.channel));
      const match = f.q ? (t: ThreadKeys) => haystack(read(t.id)).includes(f.q!) : undefined;
      const start = after ? index.seek(entries, after, true) : 0;
      const { recs, last, more } = scanEntries(entries, start, limit, match);
      let memo = mapped.get(map) as WeakMap<ThreadKeys, R> | undefined;
      if (!memo) mapped.set(map, (memo = new WeakMap()));
      const items = recs.map((t) => {
        let v = memo.get(t);
        if (v === undefined) memo.set(t, (v = map(read(t.id))));
        return v;
      });
      return { items, last, more };
    },
    async get(id) {
      const thread = store.get('threads', id);
      return thread && { thread, messages: store.get('thread_messages', id)?.messages ?? [] };
    },
    async count(workspace, view, channel) {
      return store.index('threadsByFilter').entries(threadFilterPartition(workspace, view, channel)).length;
    },
    async size() {
      return store.count('threads');
    },
    async ofContact(workspace, contact, except, max) {
      const email = contact.email?.toLowerCase();
      const out: ThreadRecord[] = [];
      for (const x of store.values('threads'))
        if (
          x.workspace_id === workspace &&
          x.id !== except &&
          (x.contact.id === contact.id || (!!email && x.contact.email?.toLowerCase() === email))
        )
          out.push(x);
      // Newest first, then by id, as PostgreSQL orders them: ties come out the same on both stores.
      out.sort((a, b) => compareKeys(threadKey(b), threadKey(a)));
      return out.slice(0, max);
    },
    async *stream() {
      for (const t of store.valuesInOrder('threads')) yield joinThread(t, store.get('thread_messages', t.id));
    },
    async taken(ids) {
      return ids.filter((id) => store.get('threads', id) !== undefined);
    },
  };
}
