// The streaming fixture reader (src/store/fixture-stream.ts): the same members and records as
// JSON.parse of the whole file, whatever the piece boundaries, and a byte offset for bad JSON.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixtureError } from '../../src/store/fixture.js';
import { FixtureSyntaxError, readFixtureStream } from '../../src/store/fixture-stream.js';
import { seedStore } from '../support/seed-store.js';
import { BULK_RECORDS, Store } from '../../src/store/store.js';
import { generateThreads } from '../support/generate-threads.mjs';
import { DEMO, tempDir } from '../support/server.js';

let d: ReturnType<typeof tempDir>;
beforeAll(() => void (d = tempDir('wcm-stream-')));
afterAll(() => d?.cleanup());
let n = 0;
const write = (text: string) => {
  const file = path.join(d.dir, `f${n++}.json`);
  writeFileSync(file, text);
  return file;
};

/** What the reader hands out, rebuilt as a document. */
async function streamed(file: string, pieceBytes?: number): Promise<Record<string, unknown>> {
  const doc: Record<string, unknown> = {};
  await readFixtureStream(
    file,
    {
      member: (name, value) => void (doc[name] = value),
      array: (name) => void (doc[name] = []),
      element: (name, i, value) => {
        const list = doc[name] as unknown[];
        expect(i).toBe(list.length);
        list.push(value);
      },
    },
    pieceBytes,
  );
  return doc;
}

const EVERY_SIZE = [1, 2, 3, 7, 64, 4096];

/** demo.json with only the longest record of each collection, indented as the file is. */
function demoSample(): string {
  const demoDoc = JSON.parse(readFileSync(DEMO, 'utf8')) as Record<string, unknown>;
  const longest = (records: unknown[]) =>
    records.reduce((a, b) => (JSON.stringify(b).length > JSON.stringify(a).length ? b : a));
  const sample = Object.entries(demoDoc).map(([k, v]) => [k, Array.isArray(v) && v.length ? [longest(v)] : v]);
  return JSON.stringify(Object.fromEntries(sample), null, 2);
}

describe('readFixtureStream', () => {
  const tricky = {
    version: 1,
    users: [{ id: 'u"1\\', name: 'brace } bracket ] quote " backslash \\\\ end', email: 'ü€😀@x' }],
    listings: [],
    odd: { nested: [1, [2, { three: '}' }]] },
    n: -12.5e3,
    t: true,
    z: null,
  };
  // Every piece is a file read (about 45 µs): demo.json (99 KB) in pieces of 1, 2, 3 and 7 bytes
  // took 4.4, 1.4, 0.9 and 0.4 s. Its longest record of each kind, laid out as the file is, takes
  // every size (pieces of 1 byte make every byte a boundary: each place a real record can be cut);
  // the whole file takes 7, 64 and 4096 (its every member and record, whole ones before a cut one).
  it.each([
    ['compact', EVERY_SIZE, JSON.stringify(tricky)],
    ['pretty', EVERY_SIZE, JSON.stringify(tricky, null, 2)],
    ['with CRLF and tabs', EVERY_SIZE, JSON.stringify(tricky, null, '\t').replace(/\n/g, '\r\n')],
    ["demo.json's longest record of each kind", EVERY_SIZE, demoSample()],
    ['demo.json', [7, 64, 4096], readFileSync(DEMO, 'utf8')],
  ])('%s: the same document as JSON.parse, in pieces of %j bytes', async (_, pieces, text) => {
    const file = write(text);
    for (const piece of pieces) expect(await streamed(file, piece), `piece ${piece}`).toEqual(JSON.parse(text));
  });

  it(`${BULK_RECORDS + 1} threads read in 4 KB pieces are the generated ones`, async () => {
    const fixture = generateThreads({ count: BULK_RECORDS + 1 });
    expect(await streamed(write(JSON.stringify(fixture)), 4096)).toEqual(fixture);
  });

  it.each([
    ['ends early', '{"version": 1,', 'the file ends before the fixture does at byte 14'],
    ['not an object', '[{"version": 1}]', 'a fixture is one JSON object; expected `{` at byte 0'],
    ['no colon', '{"version" 1}', 'expected `:` after "version" at byte 11'],
    ['no comma between records', '{"users": [{"id": "a"} {"id": "b"}]}', 'expected `,` or `]` in "users" at byte 23'],
    ['a bad record', '{"users": [{"id": "a"}, {"id": }]}', 'at byte 24'],
    ['bytes after it', '{"version": 1} {}', 'unexpected bytes after the fixture at byte 15'],
    ['a bare word', '{"version": one}', 'at byte 12'],
  ])('%s: a syntax error at its byte', async (_, text, message) => {
    const err = await streamed(write(text), 5).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FixtureSyntaxError);
    expect((err as Error).message).toContain(message);
  });
});

describe('seedStore streams each file', () => {
  it('a bad file names the file and the byte; nothing is imported', async () => {
    const s = await Store.open(path.join(d.dir, 'bad-json.json'));
    try {
      const file = write('{"version": 1, "users": [{"id": "usr_1", "name": "A" "email": "a@x"}]}');
      await expect(seedStore(s, [file])).rejects.toThrow(
        new RegExp(`${file} is not a valid store fixture[\\s\\S]*\\$: is not valid JSON \\(.*at byte 25\\)`),
      );
      expect(s.isEmpty()).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('every record is checked: the first 20 problems are shown, the rest counted', async () => {
    const s = await Store.open(path.join(d.dir, 'many-bad.json'));
    try {
      const users = Array.from({ length: 50 }, (_, i) => ({ id: `usr_${i}`, name: 'A', email: 'a@x', colour: i }));
      const err = await seedStore(s, [write(JSON.stringify({ version: 1, users }))]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FixtureError);
      expect((err as Error).message).toContain('$.users[19].colour: unknown member');
      expect((err as Error).message).not.toContain('$.users[20]');
      expect((err as Error).message).toMatch(/… and 30 more$/);
      expect(s.isEmpty()).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('a missing version and a member given twice are problems at their paths', async () => {
    const s = await Store.open(path.join(d.dir, 'twice.json'));
    try {
      const err = await seedStore(s, [write('{"users": [], "users": []}')]).catch((e: unknown) => e);
      expect((err as Error).message).toContain('$.users: given twice');
      expect((err as Error).message).toMatch(/\$\.version: /);
    } finally {
      await s.close();
    }
  });
});
