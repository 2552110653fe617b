import { open } from 'node:fs/promises';
import { QUOTE, BACKSLASH, COMMA, COLON, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET } from './json-bytes.js';

/*
 * A fixture file read as a stream (docs/fixtures.md: one JSON object whose members are, but for
 * `version`, arrays of records). The top level is scanned by hand, and each array element's bytes
 * go to JSON.parse on their own: no string ever holds the file's text (a fixture of a million
 * threads is longer than V8's longest string), and memory holds the records, not their text.
 */

/** What the reader hands out, in file order. */
export interface FixtureSink {
  /** A top-level member whose value is not an array (`version`, or something wrong). */
  member(name: string, value: unknown): void;
  /** A top-level member whose value is an array: its elements follow. */
  array(name: string): void;
  element(name: string, index: number, value: unknown): void;
  /** An element offered as its bytes, before it is parsed: true when the sink took it so (it is not parsed then). */
  elementBytes?(name: string, index: number, buf: Buffer, start: number, end: number): boolean;
  /** Awaited between pieces of the file: a sink writing records on (COPY) holds the reading back. */
  settle?(): Promise<void> | undefined;
}

/** The file is not JSON: `at` is the byte where reading stopped. */
export class FixtureSyntaxError extends Error {
  constructor(
    what: string,
    readonly at: number,
  ) {
    super(`${what} at byte ${at}`);
  }
}

const isSpace = (b: number) => b === 32 || b === 10 || b === 13 || b === 9;

/** Where the string starting at `pos` (a quote) ends, past its closing quote; -1 if not within `buf`. */
function stringEnd(buf: Buffer, pos: number): number {
  let i = pos + 1;
  for (;;) {
    const q = buf.indexOf(QUOTE, i);
    if (q === -1) return -1;
    let k = q - 1;
    while (buf[k] === BACKSLASH) k--;
    i = q + 1;
    // An even run of backslashes escapes only itself.
    if ((q - 1 - k) % 2 === 0) return i;
  }
}

/**
 * Where the JSON value starting at `pos` ends; -1 if it does not end within `buf` (and more may
 * come). Only strings and nesting are tracked: JSON.parse checks the rest.
 */
function valueEnd(buf: Buffer, pos: number, final: boolean): number {
  const first = buf[pos];
  if (first === QUOTE) return stringEnd(buf, pos);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    // A number, true, false or null: up to the next delimiter.
    let i = pos;
    while (i < buf.length) {
      const b = buf[i];
      if (b === COMMA || b === CLOSE_BRACE || b === CLOSE_BRACKET || isSpace(b)) return i;
      i++;
    }
    return final ? i : -1;
  }
  let depth = 0;
  let i = pos;
  while (i < buf.length) {
    const b = buf[i];
    if (b === QUOTE) {
      i = stringEnd(buf, i);
      if (i === -1) return -1;
      continue;
    }
    i++;
    if (b === OPEN_BRACE || b === OPEN_BRACKET) depth++;
    else if ((b === CLOSE_BRACE || b === CLOSE_BRACKET) && --depth === 0) return i;
  }
  return -1;
}

const enum Step {
  Start,
  KeyOrEnd,
  Key,
  Colon,
  Value,
  FirstElement,
  Element,
  AfterElement,
  AfterValue,
  Done,
}

/** The reader's place in the top-level object; fed the file's bytes piece by piece. */
class FixtureScanner {
  private step = Step.Start;
  private key = '';
  private index = 0;
  /** Bytes of the file before the current piece. */
  offset = 0;

  constructor(private readonly sink: FixtureSink) {}

  /** Consumes what it can of `buf` (whole tokens only); returns how many bytes it consumed. */
  feed(buf: Buffer, final: boolean): number {
    let pos = 0;
    for (;;) {
      while (pos < buf.length && isSpace(buf[pos])) pos++;
      if (pos === buf.length) {
        if (final && this.step !== Step.Done) this.fail('the file ends before the fixture does', pos);
        return pos;
      }
      const b = buf[pos];
      switch (this.step) {
        case Step.Start:
          if (b !== OPEN_BRACE) this.fail('a fixture is one JSON object; expected `{`', pos);
          this.step = Step.KeyOrEnd;
          pos++;
          continue;
        case Step.KeyOrEnd:
          if (b === CLOSE_BRACE) {
            this.step = Step.Done;
            pos++;
            continue;
          }
          this.step = Step.Key;
          continue;
        case Step.Key: {
          if (b !== QUOTE) this.fail('expected a member name in double quotes', pos);
          const end = stringEnd(buf, pos);
          if (end === -1) return pos;
          this.key = this.parse(buf, pos, end) as string;
          this.step = Step.Colon;
          pos = end;
          continue;
        }
        case Step.Colon:
          if (b !== COLON) this.fail(`expected \`:\` after "${this.key}"`, pos);
          this.step = Step.Value;
          pos++;
          continue;
        case Step.Value: {
          if (b === OPEN_BRACKET) {
            this.sink.array(this.key);
            this.index = 0;
            this.step = Step.FirstElement;
            pos++;
            continue;
          }
          const end = valueEnd(buf, pos, final);
          if (end === -1) return pos;
          this.sink.member(this.key, this.parse(buf, pos, end));
          this.step = Step.AfterValue;
          pos = end;
          continue;
        }
        case Step.FirstElement:
          if (b === CLOSE_BRACKET) {
            this.step = Step.AfterValue;
            pos++;
            continue;
          }
          this.step = Step.Element;
          continue;
        case Step.Element: {
          const end = valueEnd(buf, pos, final);
          if (end === -1) return pos;
          if (!this.sink.elementBytes?.(this.key, this.index, buf, pos, end))
            this.sink.element(this.key, this.index, this.parse(buf, pos, end));
          this.index++;
          this.step = Step.AfterElement;
          pos = end;
          continue;
        }
        case Step.AfterElement:
          if (b !== COMMA && b !== CLOSE_BRACKET) this.fail(`expected \`,\` or \`]\` in "${this.key}"`, pos);
          this.step = b === COMMA ? Step.Element : Step.AfterValue;
          pos++;
          continue;
        case Step.AfterValue:
          if (b !== COMMA && b !== CLOSE_BRACE) this.fail('expected `,` or `}` after a member', pos);
          this.step = b === COMMA ? Step.Key : Step.Done;
          pos++;
          continue;
        case Step.Done:
          this.fail('unexpected bytes after the fixture', pos);
      }
    }
  }

  private parse(buf: Buffer, start: number, end: number): unknown {
    try {
      return JSON.parse(buf.toString('utf8', start, end));
    } catch (err) {
      return this.fail((err as Error).message.replace(/ in JSON at position \d+.*$/, ''), start);
    }
  }

  private fail(what: string, pos: number): never {
    throw new FixtureSyntaxError(what, this.offset + pos);
  }
}

/** Reads `file` into `sink` in pieces of `pieceBytes` (a record longer than that is read whole). */
export async function readFixtureStream(file: string, sink: FixtureSink, pieceBytes = 4 * 1024 * 1024): Promise<void> {
  const fh = await open(file, 'r');
  try {
    const scanner = new FixtureScanner(sink);
    let rest = Buffer.alloc(0);
    for (;;) {
      // The unconsumed tail (a record cut by the piece's end, usually small) goes first, and the
      // next piece is read after it: not joined by a copy of the whole piece.
      const piece = Buffer.allocUnsafe(rest.length + pieceBytes);
      rest.copy(piece, 0);
      const { bytesRead } = await fh.read(piece, rest.length, pieceBytes, null);
      const buf = piece.subarray(0, rest.length + bytesRead);
      const used = scanner.feed(buf, bytesRead === 0);
      scanner.offset += used;
      rest = buf.subarray(used);
      await sink.settle?.();
      if (bytesRead === 0) return;
    }
  } finally {
    await fh.close();
  }
}
