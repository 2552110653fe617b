import { COLLECTIONS, LAZY_COLLECTIONS, type CollectionName } from './records.js';
import { splitThread, type FullThread } from './threads.js';

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

const TAB = 9;
const NL = 10;
const QUOTE = 34;
const BACKSLASH = 92;
const CLOSE_BRACE = 125;
const isCollection = (c: unknown): c is CollectionName =>
  typeof c === 'string' && (COLLECTIONS as readonly string[]).includes(c);

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

/**
 * One collection as `encodeSnapshot` writes it: parsed records, or (lazy) ids with records. A lazy
 * record given as a number is copied from `source`: its JSON starts at that offset and ends before
 * the next newline (a record loaded and never read, written back without parsing it).
 */
export type SnapshotSection =
  | { collection: CollectionName; records: unknown[] }
  | { collection: CollectionName; lazy: Iterable<[string, unknown]>; source?: Buffer; stubs?: Array<{ id: string }> };

/**
 * Appends bytes to a list of large buffers: no per-record Buffer objects, no final copy. Filled
 * chunks can be taken as it goes (`take`), so a writer streaming them holds about one chunk.
 */
class ChunkWriter {
  private chunks: Buffer[] = [];
  private buf = Buffer.allocUnsafe(0);
  private pos = 0;

  constructor(private readonly size: number) {}

  private room(n: number): void {
    if (this.buf.length - this.pos >= n) return;
    if (this.pos) this.chunks.push(this.buf.subarray(0, this.pos));
    this.buf = Buffer.allocUnsafe(Math.max(this.size, n));
    this.pos = 0;
  }

  string(s: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    this.room(s.length * 3);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  /** A long run of bytes (unread records copied whole) is cut across chunks. */
  bytes(src: Buffer, start: number, end: number): void {
    while (start < end) {
      this.room(Math.min(this.size, end - start));
      const n = src.copy(this.buf, this.pos, start, Math.min(end, start + this.buf.length - this.pos));
      this.pos += n;
      start += n;
    }
  }

  get filled(): boolean {
    return this.chunks.length > 0;
  }

  /** The chunks filled so far (the writer keeps none of them). */
  take(): Buffer[] {
    const out = this.chunks;
    this.chunks = [];
    return out;
  }

  done(): Buffer[] {
    if (this.pos) this.chunks.push(this.buf.subarray(0, this.pos));
    this.buf = Buffer.allocUnsafe(0);
    this.pos = 0;
    return this.take();
  }
}

/** The bytes of a version 2 snapshot, in order, as a few large buffers (see snapshotChunks). */
export async function encodeSnapshot(seq: number, sections: SnapshotSection[], sliceMs = 10): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const chunk of snapshotChunks(seq, sections, { sliceMs })) out.push(chunk);
  return out;
}

export interface ChunkOptions {
  /** How long it encodes before it lets the event loop go round (ms). */
  sliceMs?: number;
  /** The size of the chunks it hands out; one record longer than this comes in a chunk of its own size. */
  chunkBytes?: number;
}

/**
 * The bytes of a version 2 snapshot, in order, handed out chunk by chunk as they fill: a writer
 * streams them to the file, so no string or buffer ever holds the whole snapshot (a bulk load of
 * a million threads is bigger than V8's longest string). Encoding a big store takes seconds, so it
 * yields to the event loop every few milliseconds: reads go on meanwhile. The sections must not
 * change while it runs (the store hands it arrays taken at one moment).
 */
export async function* snapshotChunks(
  seq: number,
  sections: SnapshotSection[],
  options: ChunkOptions = {},
): AsyncGenerator<Buffer> {
  const sliceMs = options.sliceMs ?? 10;
  const out = new ChunkWriter(options.chunkBytes ?? 8 * 1024 * 1024);
  let sliceStart = performance.now();
  let n = 0;
  // Checked every 256 records; `await` only when the slice is used up (an await per record costs).
  const due = () => (++n & 255) === 0 && performance.now() - sliceStart >= sliceMs;
  const pause = async () => {
    await new Promise<void>((r) => setImmediate(r));
    sliceStart = performance.now();
  };
  out.string(`${JSON.stringify({ format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, seq })}\n`);
  let written = 0;
  for (const s of sections) {
    if ('records' in s) {
      if (!s.records.length) continue;
      // The same bytes as JSON.stringify({ collection, records }), one record at a time.
      out.string(`{"collection":${JSON.stringify(s.collection)},"records":[`);
      for (let i = 0; i < s.records.length; i++) {
        if (i) out.string(',');
        out.string(JSON.stringify(s.records[i]));
        if (due()) await pause();
        if (out.filled) yield* out.take();
      }
      out.string(']}\n');
      written++;
      continue;
    }
    const items = [...s.lazy];
    if (!items.length) continue;
    if (s.stubs && s.stubs.length !== items.length)
      throw new Error(`${s.collection}: ${items.length} records but ${s.stubs.length} stubs`);
    out.string(`{"collection":${JSON.stringify(s.collection)},"lazy":${items.length}`);
    if (s.stubs) {
      out.string(',"stubs":[');
      for (let i = 0; i < s.stubs.length; i++) {
        if (i) out.string(',');
        out.string(JSON.stringify(s.stubs[i]));
        if (due()) await pause();
        if (out.filled) yield* out.take();
      }
      out.string(']');
    }
    out.string('}\n');
    // Unread records are copied as their whole lines; lines that follow each other in the source
    // (the usual case: unchanged records keep their order) go out in one copy.
    const src = s.source;
    let runStart = -1;
    let runEnd = -1;
    for (const [id, v] of items) {
      if (due()) await pause();
      if (out.filled) yield* out.take();
      if (typeof v === 'number') {
        const lineStart = src!.lastIndexOf(NL, v) + 1;
        const lineEnd = src!.indexOf(NL, v) + 1;
        if (lineStart !== runEnd) {
          if (runStart >= 0) out.bytes(src!, runStart, runEnd);
          runStart = lineStart;
        }
        runEnd = lineEnd;
        continue;
      }
      if (runStart >= 0) out.bytes(src!, runStart, runEnd);
      runStart = runEnd = -1;
      out.string(JSON.stringify(id));
      out.string('\t');
      out.string(JSON.stringify(v));
      out.string('\n');
    }
    if (runStart >= 0) out.bytes(src!, runStart, runEnd);
    written++;
  }
  out.string(`${JSON.stringify({ end: written })}\n`);
  yield* out.done();
}
