import { COLLECTIONS, LAZY_COLLECTIONS, type CollectionName } from '../records.js';
import { splitThread, type FullThread } from '../threads.js';
import { TAB, NL, QUOTE, BACKSLASH, CLOSE_BRACE } from '../json-bytes.js';

/**
 * The snapshot file (`FILE`): the whole state at one journal sequence number, replaced atomically.
 *
 * Version 2, one JSON value per line:
 *
 *     {"format":"wcm-store","version":2,"seq":N}
 *     {"collection":"users","records":[…]}              one line per collection with records
 *     {"collection":"thread_messages","lazy":COUNT}      a lazy collection (LAZY_COLLECTIONS):
 *     "ID"<TAB>{…record…}                                COUNT lines, one record each
 *     {"collection":"threads","lazy":COUNT,"stubs":[…]}  a lazy collection with indexes: the
 *                                                        members they read, per record, in line order
 *     {"end":SECTIONS}
 *
 * A lazy collection's lines are not parsed at start-up: the store keeps each record's byte offset
 * and parses it on first read; its indexes are built from the stubs. Records of indexed collections are written in index order, so the
 * indexes load with a sort that finds them sorted. Version 1 (one JSON document with every
 * collection, threads with their messages inline) is still read.
 *
 * A named snapshot (snapshot-writer.ts, `kept`) pads its header and an empty `settings` line with
 * spaces to fixed lengths, so a restore can rewrite both in place and link the file as the data file.
 */
export const SNAPSHOT_FORMAT = 'wcm-store';
export const SNAPSHOT_VERSION = 2;

/** Why a file is not a readable snapshot; `notOurs` when it is some other JSON file (a fixture, say). */
export class SnapshotError extends Error {
  constructor(
    message: string,
    readonly notOurs = false,
  ) {
    super(message);
  }
}

export interface SnapshotSink {
  /** A parsed record. */
  record(c: CollectionName, rec: { id: string }): void;
  /**
   * A lazy collection: record i has id `ids[i]`, and its JSON starts at byte `offsets[i]` of
   * `bytes` and ends before the next newline. `stubs`, for a collection with indexes, holds the
   * members they read, per record.
   */
  lazy(
    c: CollectionName,
    bytes: Buffer,
    ids: string[],
    offsets: number[],
    stubs: Array<{ id: string }> | undefined,
  ): void;
}

const isCollection = (c: unknown): c is CollectionName =>
  typeof c === 'string' && (COLLECTIONS as readonly string[]).includes(c);

/** How every snapshot file this wcm writes begins. */
const SNAPSHOT_START = Buffer.from(`{"format":"${SNAPSHOT_FORMAT}"`);

/** True when `buf` begins as a snapshot file does (named snapshots saved before were fixture documents). */
export function isSnapshotFile(buf: Buffer): boolean {
  return buf.subarray(0, SNAPSHOT_START.length).equals(SNAPSHOT_START);
}

/** Reads a snapshot into `sink`; returns its sequence number. Throws SnapshotError when it is not one. */
export function readSnapshot(buf: Buffer, sink: SnapshotSink): number {
  let nl = buf.indexOf(NL);
  let header: { format?: unknown; version?: unknown; seq?: unknown; collections?: Record<string, unknown[]> };
  try {
    header = JSON.parse(buf.toString('utf8', 0, nl === -1 ? buf.length : nl));
  } catch (err) {
    throw new SnapshotError(`is not valid JSON (${(err as Error).message})`);
  }
  if (header?.format !== SNAPSHOT_FORMAT)
    throw new SnapshotError(`is not a wcm data file (it has no "format": "${SNAPSHOT_FORMAT}")`, true);
  const seq = typeof header.seq === 'number' ? header.seq : 0;
  if (header.version === 1 || header.version === undefined) {
    readVersion1(header.collections ?? {}, sink);
    return seq;
  }
  if (header.version !== SNAPSHOT_VERSION)
    throw new SnapshotError(
      `was written by a newer wcm (data format version ${String(header.version)}; this wcm reads 1 and 2)`,
    );

  let pos = nl + 1;
  let sections = 0;
  const bad = (what: string) => new SnapshotError(`is damaged: ${what} (byte ${pos})`);
  for (;;) {
    if (nl === -1 || pos >= buf.length) throw bad('it ends before its end marker');
    nl = buf.indexOf(NL, pos);
    if (nl === -1) throw bad('its last line is incomplete');
    let line: { collection?: unknown; records?: unknown; lazy?: unknown; end?: unknown };
    try {
      line = JSON.parse(buf.toString('utf8', pos, nl));
    } catch (err) {
      throw bad(`a line is not valid JSON (${(err as Error).message})`);
    }
    pos = nl + 1;
    if (line && 'end' in line) {
      if (line.end !== sections)
        throw bad(`the end marker counts ${String(line.end)} collections, the file holds ${sections}`);
      if (pos !== buf.length) throw bad('there are bytes after the end marker');
      return seq;
    }
    const c = line?.collection;
    if (!isCollection(c)) throw bad(`unknown collection ${JSON.stringify(c)}`);
    sections++;
    if (Array.isArray(line.records)) {
      for (const rec of line.records) sink.record(c, rec);
      continue;
    }
    const count = line.lazy;
    if (typeof count !== 'number' || !LAZY_COLLECTIONS.has(c)) throw bad(`collection \`${c}\` has no records`);
    const stubs = (line as { stubs?: unknown }).stubs as Array<{ id: string }> | undefined;
    if (stubs !== undefined && (!Array.isArray(stubs) || stubs.length !== count))
      throw bad(`collection \`${c}\` has ${count} records but not as many index stubs`);
    // Offsets point into the file's buffer itself (most of a big file is lazy records: a copy
    // would cost more than the little it frees).
    const ids: string[] = new Array(count);
    const offsets: number[] = new Array(count);
    for (let i = 0; i < count; i++) {
      const e = buf.indexOf(NL, pos);
      const tab = buf.indexOf(TAB, pos);
      // `"id"<TAB>{…}`: the id is a JSON string (which cannot hold a raw tab), the record an object.
      if (e === -1) throw bad(`collection \`${c}\` ends after ${i} of ${count} records`);
      if (buf[pos] !== QUOTE || tab === -1 || tab > e || buf[tab - 1] !== QUOTE || buf[e - 1] !== CLOSE_BRACE)
        throw bad(`a record of \`${c}\` is malformed`);
      if (stubs) {
        // The stubs are in line order and carry the ids (checked against the record when it is read).
        const id = stubs[i]?.id;
        if (typeof id !== 'string') throw bad(`index stub ${i} of \`${c}\` has no id`);
        ids[i] = id;
      } else {
        const idBytes = buf.subarray(pos + 1, tab - 1);
        ids[i] = idBytes.includes(BACKSLASH)
          ? (JSON.parse(buf.toString('utf8', pos, tab)) as string)
          : idBytes.toString('utf8');
      }
      offsets[i] = tab + 1;
      pos = e + 1;
    }
    nl = pos - 1;
    sink.lazy(c, buf, ids, offsets, stubs);
  }
}

/** Version 1: every collection in one document; threads carried their messages inline. */
function readVersion1(collections: Record<string, unknown[]>, sink: SnapshotSink): void {
  for (const [c, recs] of Object.entries(collections)) {
    if (!isCollection(c)) throw new SnapshotError(`names an unknown collection \`${c}\``);
    for (const rec of recs ?? []) for (const [cc, r] of upgradeRecord(c, rec)) sink.record(cc, r as { id: string });
  }
}

/**
 * A record as version 1 wrote it (in a snapshot or a journal line; null for a deletion), as the
 * records it is now: a thread with its messages inline becomes the thread and its
 * `thread_messages`, and deleting a thread deletes both.
 */
export function upgradeRecord(c: CollectionName, rec: unknown): Array<[CollectionName, unknown]> {
  if (c === 'oauth_grants' && rec) return [[c, upgradeGrant(rec as Record<string, unknown>)]];
  if (c !== 'threads') return [[c, rec]];
  if (rec === null)
    return [
      ['threads', null],
      ['thread_messages', null],
    ];
  if (Array.isArray((rec as { messages?: unknown }).messages)) {
    const { thread, messages } = splitThread(rec as FullThread);
    return [
      ['threads', thread],
      ['thread_messages', messages],
    ];
  }
  return [[c, rec]];
}

/** A grant that kept every used refresh hash: the list becomes its length, the generation counter. */
function upgradeGrant(rec: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(rec.used_refresh_sha256)) return rec;
  const { used_refresh_sha256: used, ...grant } = rec;
  return { ...grant, refresh_generation: (used as unknown[]).length };
}
