import { crc32 } from 'node:zlib';
import type { Op } from './state.js';

/*
 * The journal format (`FILE.journal`). One line per transaction:
 *
 *     CRC32-hex SP JSON LF        e.g. `0a1b2c3d {"s":12,"d":4096,"o":[["listings","…",{…}]]}`
 *
 * - the CRC32 (8 lowercase hex digits) is over the JSON's UTF-8 bytes;
 * - `s` is the transaction's sequence number, one more than the line before it;
 * - `d` is the journal offset up to which everything was durable (acknowledged) when the line was
 *   written, so recovery can tell a line damaged after it was acknowledged (corruption) from one a
 *   crash tore while it was still being synced (a torn tail); journals written before wcm recorded
 *   it have no `d`;
 * - `o` is the transaction's writes, `[collection, id, record]`, a null record for a delete.
 *
 * The snapshot (`FILE`) holds every transaction up to its own sequence number; replay skips lines
 * at or below it. Zeros after the last line (preallocation, see files.ts) read as a torn tail.
 */

export interface Frame {
  s: number;
  /** Missing in journals written before wcm recorded it. */
  d?: number;
  o: Op[];
}

/** A transaction as the journal writes it. */
export interface Entry {
  seq: number;
  ops: Op[];
}

/**
 * A batch's lines, one per transaction, written straight into one buffer (no buffer per line, no
 * concatenation). `durable` is the `d` of every line.
 */
export function encodeBatch(batch: readonly Entry[], durable: number): Buffer {
  const jsons: string[] = new Array(batch.length);
  let total = 0;
  for (let i = 0; i < batch.length; i++) {
    jsons[i] = JSON.stringify({ s: batch[i].seq, d: durable, o: batch[i].ops });
    total += Buffer.byteLength(jsons[i]) + 10;
  }
  const buf = Buffer.allocUnsafe(total);
  let at = 0;
  for (const json of jsons) {
    const len = buf.write(json, at + 9, 'utf8');
    buf.write(
      crc32(buf.subarray(at + 9, at + 9 + len))
        .toString(16)
        .padStart(8, '0'),
      at,
      'latin1',
    );
    buf[at + 8] = 32;
    buf[at + 9 + len] = 10;
    at += len + 10;
  }
  return buf;
}

/** One line (without its LF), or null if it fails its checksum or shape. */
export function decodeFrame(text: string): Frame | null {
  const sp = text.indexOf(' ');
  if (sp !== 8) return null;
  const json = text.slice(9);
  if (crc32(json).toString(16).padStart(8, '0') !== text.slice(0, 8)) return null;
  try {
    const v = JSON.parse(json);
    return typeof v?.s === 'number' && Array.isArray(v.o) && (v.d === undefined || typeof v.d === 'number') ? v : null;
  } catch {
    return null;
  }
}

/** Where the intact lines stop, and what follows: a torn tail, or corruption. */
export interface Scan {
  /** Offset just past the last intact line before the first bad one (or the end). */
  goodEnd: number;
  /** The first bad line, if any. */
  bad?: {
    line: number;
    offset: number;
    /** Intact lines after it (dropped with it when it is a torn tail). */
    after: number;
    /**
     * Whether one of those was written once the bad line had been acknowledged: then an
     * acknowledged record is damaged, which is corruption, not a crash's torn tail. (The tail of a
     * crash during a group commit can have holes: the kernel writes pages back in any order until
     * the sync returns. None of the lines after a hole was acknowledged: a line is acknowledged only
     * once every line before it is durable.)
     */
    writtenAfterAck: boolean;
  };
}

/** Reads the journal's lines in order, handing each intact one to `onFrame` (which may throw), up to the first bad one. */
export function scanJournal(buf: Buffer, onFrame: (f: Frame, line: number) => void): Scan {
  let offset = 0;
  let line = 0;
  while (offset < buf.length) {
    const nl = buf.indexOf(10, offset);
    line++;
    const end = nl === -1 ? buf.length : nl;
    const frame = nl === -1 ? null : decodeFrame(buf.toString('utf8', offset, end));
    if (!frame) {
      const after = framesAfter(buf, nl === -1 ? buf.length : nl + 1, offset);
      return { goodEnd: offset, bad: { line, offset, after: after.count, writtenAfterAck: after.writtenAfterAck } };
    }
    onFrame(frame, line);
    offset = end + 1;
  }
  return { goodEnd: offset };
}

/**
 * The intact lines after a bad one at `bad`, and whether any of them was written once the bad
 * line had been acknowledged (its `d` past `bad`, or no `d` at all: a journal from before wcm
 * recorded it, which cannot tell).
 */
function framesAfter(buf: Buffer, from: number, bad: number): { count: number; writtenAfterAck: boolean } {
  let offset = from;
  let count = 0;
  let writtenAfterAck = false;
  while (offset < buf.length) {
    const nl = buf.indexOf(10, offset);
    if (nl === -1) break;
    const f = decodeFrame(buf.toString('utf8', offset, nl));
    if (f) {
      count++;
      if (f.d === undefined || f.d > bad) writtenAfterAck = true;
    }
    offset = nl + 1;
  }
  return { count, writtenAfterAck };
}
