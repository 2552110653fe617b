import { isUtf8 } from 'node:buffer';
import { CHANNELS } from '../contract/enums.js';
import { plainThread } from './fixture-fast.js';
import type { ThreadRecord } from './records.js';
import { threadRecord } from './threads.js';
import { QUOTE, BACKSLASH, COMMA, CLOSE_BRACKET, CLOSE_BRACE, DASH } from './json-bytes.js';

/*
 * A fixture's thread taken from its bytes when its messages are written exactly as the store
 * writes them (JSON.stringify of the records: members in their order, no spaces, strings escaped
 * as it escapes them, oldest first) and come last: they are checked byte by byte here and copied
 * into the data file's line as they are, never parsed into objects nor written again (parsing,
 * checking and writing them again was half of a 100,000-thread `--seed`). Anything else returns
 * undefined and the caller parses the thread as before, so what is taken, and every message about
 * what is not, stay the same (test/store/fixture-raw.test.ts compares the two). Bench fixtures and
 * compact exports are in this form.
 */

const MESSAGES = Buffer.from(',"messages":[');
const ID = Buffer.from('{"id":"');
const CHANNEL = Buffer.from('","channel":"');
const CHANNEL_TAILS = CHANNELS.map((c) => Buffer.from(`${c}","direction":"`));
const DIRECTION_TAILS = ['inbound', 'outbound'].map((d) => Buffer.from(`${d}","body":"`));
const CREATED_AT = Buffer.from('","created_at":"');
const MESSAGE_END = Buffer.from('"}');
const TS_BYTES = 24;

const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;
/** The escapes JSON.stringify writes, but for `\u00XX` (taken by no fast path). */
const SHORT_ESCAPE = new Uint8Array(256);
for (const c of '"\\bfnrt') SHORT_ESCAPE[c.charCodeAt(0)] = 1;

/** Past `lit` at `pos`, or -1 when the bytes there are not `lit`. */
function literal(buf: Buffer, pos: number, lit: Buffer): number {
  for (let i = 0; i < lit.length; i++) if (buf[pos + i] !== lit[i]) return -1;
  return pos + lit.length;
}

/** A version 1–8 UUID (the schema's uuid, but for the nil and max ones, which go to the schema). */
function isUuid(buf: Buffer, p: number): boolean {
  for (let i = 0; i < 36; i++) {
    const b = buf[p + i];
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (b !== DASH) return false;
    } else if (!HEX[b]) return false;
  }
  const version = buf[p + 14];
  const variant = buf[p + 19] | 0x20;
  return (
    version >= 0x31 && version <= 0x38 && (variant === 0x38 || variant === 0x39 || variant === 0x61 || variant === 0x62)
  );
}

const digits = (buf: Buffer, p: number, n: number): number => {
  let v = 0;
  for (let i = 0; i < n; i++) {
    const d = buf[p + i] - 48;
    if (!(d >= 0 && d <= 9)) return -1;
    v = v * 10 + d;
  }
  return v;
};
const MONTH_DAYS = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** `YYYY-MM-DDTHH:MM:SS.mmmZ` of a real date and time (fixture-fast.ts: CANONICAL_TS and the schema's datetime). */
function isTimestamp(buf: Buffer, p: number): boolean {
  if (buf[p + 4] !== 45 || buf[p + 7] !== 45 || buf[p + 10] !== 84 || buf[p + 13] !== 58 || buf[p + 16] !== 58)
    return false;
  if (buf[p + 19] !== 46 || buf[p + 23] !== 90 || digits(buf, p + 20, 3) < 0) return false;
  const y = digits(buf, p, 4);
  const mo = digits(buf, p + 5, 2);
  const d = digits(buf, p + 8, 2);
  const h = digits(buf, p + 11, 2);
  const mi = digits(buf, p + 14, 2);
  const s = digits(buf, p + 17, 2);
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > MONTH_DAYS[mo]) return false;
  if (mo === 2 && d === 29 && !(y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0))) return false;
  return h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && s >= 0 && s <= 59;
}

/** Whether the timestamp at `a` is before or at the one at `b` (ASCII: byte order is string order). */
function notAfter(buf: Buffer, a: number, b: number): boolean {
  for (let i = 0; i < TS_BYTES; i++) if (buf[a + i] !== buf[b + i]) return buf[a + i] < buf[b + i];
  return true;
}

/**
 * Where the body string starting at `p` (past its quote) ends, at its closing quote; -1 unless it
 * is as JSON.stringify writes it: no raw control characters, only short escapes, valid UTF-8.
 */
function bodyEnd(buf: Buffer, p: number, end: number): number {
  const start = p;
  let high = false;
  for (; p < end; p++) {
    const b = buf[p];
    if (b === QUOTE) return high && !isUtf8(buf.subarray(start, p)) ? -1 : p;
    if (b === BACKSLASH) {
      if (!SHORT_ESCAPE[buf[++p]]) return -1;
    } else if (b < 0x20) return -1;
    else if (b >= 0x80) high = true;
  }
  return -1;
}

/** What the scan of a messages array found; `end` is past its `]`. */
interface Scanned {
  end: number;
  count: number;
  channels: number;
  lastAt: number;
  lastBody: number;
  lastBodyEnd: number;
}

/** Scans the messages array whose `[` is at `p - 1`; undefined unless every message is in the store's form and order. */
function scanMessages(buf: Buffer, p: number, end: number): Scanned | undefined {
  const s: Scanned = { end: -1, count: 0, channels: 0, lastAt: -1, lastBody: -1, lastBodyEnd: -1 };
  if (buf[p] === CLOSE_BRACKET) return { ...s, end: p + 1 };
  for (;;) {
    p = literal(buf, p, ID);
    if (p < 0 || !isUuid(buf, p)) return undefined;
    p = literal(buf, p + 36, CHANNEL);
    if (p < 0) return undefined;
    let c = 0;
    while (c < CHANNEL_TAILS.length && literal(buf, p, CHANNEL_TAILS[c]) < 0) c++;
    if (c === CHANNEL_TAILS.length) return undefined;
    p += CHANNEL_TAILS[c].length;
    s.channels |= 1 << c;
    const dir = literal(buf, p, DIRECTION_TAILS[0]);
    p = dir >= 0 ? dir : literal(buf, p, DIRECTION_TAILS[1]);
    if (p < 0) return undefined;
    const bodyAt = p;
    p = bodyEnd(buf, p, end);
    if (p < 0) return undefined;
    const bodyStop = p;
    p = literal(buf, p, CREATED_AT);
    if (p < 0 || !isTimestamp(buf, p) || (s.lastAt >= 0 && !notAfter(buf, s.lastAt, p))) return undefined;
    s.lastAt = p;
    s.lastBody = bodyAt;
    s.lastBodyEnd = bodyStop;
    s.count++;
    p = literal(buf, p + TS_BYTES, MESSAGE_END);
    if (p < 0 || p >= end) return undefined;
    if (buf[p] === CLOSE_BRACKET) return { ...s, end: p + 1 };
    if (buf[p++] !== COMMA) return undefined;
  }
}

/** A thread of a fixture in the store's form: its record, and its messages array at `messages` (byte range). */
export interface RawThread {
  thread: ThreadRecord;
  messages: [number, number];
}

/** The thread whose bytes are `buf[start, end)`, when its messages are in the store's form; else undefined. */
export function rawThread(buf: Buffer, start: number, end: number): RawThread | undefined {
  const at = buf.indexOf(MESSAGES, start);
  if (at < 0 || at >= end) return undefined;
  const open = at + MESSAGES.length - 1;
  const scanned = scanMessages(buf, open + 1, end);
  // The messages must be the last member: the head before them is then a whole object of its own.
  if (!scanned || scanned.end !== end - 1 || buf[end - 1] !== CLOSE_BRACE) return undefined;
  let head: unknown;
  try {
    head = JSON.parse(`${buf.toString('utf8', start, at)}}`);
  } catch {
    return undefined;
  }
  if (typeof head !== 'object' || head === null || Array.isArray(head) || Object.hasOwn(head, 'messages'))
    return undefined;
  (head as { messages: unknown }).messages = [];
  const t = plainThread(head);
  if (!t) return undefined;
  const last = scanned.count
    ? {
        created_at: buf.toString('latin1', scanned.lastAt, scanned.lastAt + TS_BYTES),
        body: JSON.parse(buf.toString('utf8', scanned.lastBody - 1, scanned.lastBodyEnd + 1)) as string,
      }
    : undefined;
  const channels = CHANNELS.filter((_, i) => scanned.channels & (1 << i));
  return { thread: threadRecord(t, { channels, count: scanned.count, last }), messages: [open, scanned.end] };
}
