import type { SortKey } from '../sorted-index.js';

/**
 * A sort key as bytes whose order (PostgreSQL's bytea: byte by byte, a prefix first) is exactly
 * compareKeys's (sorted-index.ts): null below everything, numbers by value, strings as JavaScript
 * compares them (UTF-16 code units, no collation), a shorter key before a longer one it begins.
 * No text collation agrees with JavaScript on every string (UTF-8 orders characters past U+FFFF
 * after U+E000–U+FFFF; JavaScript, by their surrogates, before), so the keys are bytes.
 *
 * Per element: a tag (null 1, number 2, string 3); a number as 8 bytes that order as its value;
 * a string as its code units, 1–126 in one byte (c + 1), the rest in three (0x80, then c), then 0.
 */
export function encodeKey(key: SortKey): Buffer {
  const out: number[] = [];
  for (const v of key) {
    if (v === null) out.push(1);
    else if (typeof v === 'number') out.push(2, ...orderedDouble(v));
    else {
      out.push(3);
      for (let i = 0; i < v.length; i++) {
        const c = v.charCodeAt(i);
        if (c < 0x7f) out.push(c + 1);
        else out.push(0x80, c >> 8, c & 0xff);
      }
      out.push(0);
    }
  }
  return Buffer.from(out);
}

/** A double's IEEE bytes, big-endian, the sign bit flipped (all bits, for a negative): unsigned order is numeric order. */
function orderedDouble(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(n === 0 ? 0 : n);
  if (b[0] & 0x80) for (let i = 0; i < 8; i++) b[i] = ~b[i] & 0xff;
  else b[0] |= 0x80;
  return b;
}
