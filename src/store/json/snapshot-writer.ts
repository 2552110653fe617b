import type { CollectionName } from '../records.js';
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION, SnapshotError } from './snapshot.js';
import { NL } from '../json-bytes.js';

/*
 * Writing the snapshot file (format in snapshot.ts): the whole state encoded chunk by chunk, so a
 * writer streams it to disk and nothing ever holds all of it.
 */

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
export class ChunkWriter {
  private chunks: Buffer[] = [];
  private buf = Buffer.allocUnsafe(0);
  private pos = 0;
  /** Bytes before the current buffer's. */
  private before = 0;

  constructor(private readonly size: number) {}

  private room(n: number): void {
    if (this.buf.length - this.pos >= n) return;
    if (this.pos) this.chunks.push(this.buf.subarray(0, this.pos));
    this.before += this.pos;
    this.buf = Buffer.allocUnsafe(Math.max(this.size, n));
    this.pos = 0;
  }

  /** How many bytes were written so far. */
  get length(): number {
    return this.before + this.pos;
  }

  string(s: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    this.room(s.length * 3);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  /**
   * A run of bytes (unread records copied whole). One longer than a chunk is handed out as pieces
   * of `src` itself, not copied (a bulk load's lines, a hundred megabytes in one run).
   */
  bytes(src: Buffer, start: number, end: number): void {
    if (end - start >= this.size) {
      if (this.pos) this.chunks.push(this.buf.subarray(0, this.pos));
      this.buf = this.buf.subarray(this.pos);
      this.before += this.pos;
      this.pos = 0;
      this.before += end - start;
      for (; start < end; start += this.size) this.chunks.push(src.subarray(start, Math.min(end, start + this.size)));
      return;
    }
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
    this.before += this.pos;
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
  /**
   * A saved (named) snapshot: the header padded to SAVED_HEADER_BYTES, then an empty line of this
   * collection padded to SAVED_KEPT_BYTES, so a restore can rewrite both in place (patchSaved).
   */
  kept?: CollectionName;
}

/** The padded lines of a saved snapshot (ChunkOptions.kept), newline included. */
export const SAVED_HEADER_BYTES = 128;
export const SAVED_KEPT_BYTES = 64 * 1024;

/** `json` padded with spaces (which JSON allows) to a line of `bytes` bytes. */
const padded = (json: string, bytes: number) => `${json}${' '.repeat(bytes - 1 - Buffer.byteLength(json))}\n`;

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
  const header = JSON.stringify({ format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, seq });
  let written = 0;
  if (options.kept) {
    out.string(padded(header, SAVED_HEADER_BYTES));
    out.string(padded(JSON.stringify({ collection: options.kept, records: [] }), SAVED_KEPT_BYTES));
    written++;
  } else out.string(`${header}\n`);
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

/**
 * A saved snapshot file's bytes as the data file at `seq`: its header replaced, `extra`'s sections
 * added last (so they win over records of the same id), its end marker counting them. The rest is
 * copied as it is; readSnapshot checks it when the result is read.
 */
export function rebaseSnapshot(
  saved: Buffer,
  seq: number,
  extra: ReadonlyArray<{ collection: CollectionName; records: unknown[] }>,
): Buffer {
  const bodyStart = saved.indexOf(NL) + 1;
  let header: { format?: unknown; version?: unknown } | undefined;
  try {
    header = bodyStart ? JSON.parse(saved.toString('utf8', 0, bodyStart)) : undefined;
  } catch {
    // Reported below.
  }
  if (header?.format !== SNAPSHOT_FORMAT) throw new SnapshotError('is not a wcm snapshot file', true);
  if (header.version !== SNAPSHOT_VERSION)
    throw new SnapshotError(`is in data format version ${String(header.version)}, not ${SNAPSHOT_VERSION}`);
  const endStart = saved.lastIndexOf(NL, saved.length - 2) + 1;
  let end: unknown;
  try {
    end = JSON.parse(saved.toString('utf8', endStart)).end;
  } catch {
    // Reported below.
  }
  if (endStart < bodyStart || saved[saved.length - 1] !== NL || typeof end !== 'number')
    throw new SnapshotError('is damaged: it does not end with its end marker');
  const lines = extra.filter((s) => s.records.length).map((s) => `${JSON.stringify(s)}\n`);
  return Buffer.concat([
    Buffer.from(`${JSON.stringify({ format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, seq })}\n`),
    saved.subarray(bodyStart, endStart),
    Buffer.from(`${lines.join('')}${JSON.stringify({ end: end + lines.length })}\n`),
  ]);
}

/**
 * Rewrites a saved snapshot's padded lines in `saved` itself: the header at `seq`, and `kept`'s
 * records (replacing those a restore wrote there before). False (nothing changed) when `saved` is
 * not laid out so (saved before, or not a version 2 snapshot) or the records do not fit.
 */
export function patchSaved(
  saved: Buffer,
  seq: number,
  kept: { collection: CollectionName; records: unknown[] },
): boolean {
  const h = SAVED_HEADER_BYTES;
  const k = SAVED_KEPT_BYTES;
  if (saved.length <= h + k || saved.indexOf(NL) !== h - 1 || saved.indexOf(NL, h) !== h + k - 1) return false;
  let header: { format?: unknown; version?: unknown } | undefined;
  let line: { collection?: unknown; records?: unknown } | undefined;
  try {
    header = JSON.parse(saved.toString('utf8', 0, h));
    line = JSON.parse(saved.toString('utf8', h, h + k));
  } catch {
    return false;
  }
  if (header?.format !== SNAPSHOT_FORMAT || header.version !== SNAPSHOT_VERSION) return false;
  if (line?.collection !== kept.collection || !Array.isArray(line.records)) return false;
  const json = JSON.stringify(kept);
  if (Buffer.byteLength(json) > k - 1) return false;
  saved.write(padded(JSON.stringify({ format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, seq }), h), 0);
  saved.write(padded(json, k), h);
  return true;
}
