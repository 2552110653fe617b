import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { plainThread } from '../../src/store/fixture-fast.js';
import { FixtureSchema } from '../../src/store/fixture-schema.js';
import { LazyLines } from '../../src/store/lazy-lines.js';
import { seedStore } from '../support/seed-store.js';
import { readSnapshot } from '../../src/store/snapshot.js';
import { encodeSnapshot, snapshotChunks } from '../../src/store/snapshot-writer.js';
import { Store } from '../../src/store/store.js';
import { tempDir } from '../support/server.js';

const ThreadSchema = FixtureSchema.shape.threads.unwrap().element;
const id = (n: number) => `${String(n).padStart(8, '0')}-1c1e-4c1e-8c1e-0b5e5a5e1c1e`;
const full = () => ({
  id: id(1),
  workspace_id: id(2),
  subject: 'Hello',
  status: 'closed',
  unread: true,
  starred: false,
  contact: { id: id(3), name: 'Ann', email: 'ann@example.com', phone: null },
  messages: [
    { id: id(4), channel: 'whatsapp', direction: 'inbound', body: 'hi', created_at: '2024-02-29T10:00:00.000Z' },
    { id: id(5), channel: 'email', direction: 'outbound', body: '', created_at: '2024-01-01T00:00:00.000Z' },
  ],
});

/** `full()` changed by `f` (which may delete members or set them to anything). */
function variant(f: (t: any) => void): unknown {
  const t = full();
  f(t);
  return t;
}

const VARIANTS: Array<[string, unknown]> = [
  ['complete', full()],
  ['members left to their defaults', { id: id(1), workspace_id: id(2), contact: { id: id(3) } }],
  [
    'keys in another order',
    JSON.parse(JSON.stringify(full()).replace('"id":"00000001', '"zz":0,"id":"00000001').replace('"zz":0,', '')),
  ],
  ['not an object', [full()]],
  ['null', null],
  ['unknown member', variant((t) => (t.extra = 1))],
  [
    '__proto__ member',
    JSON.parse('{"__proto__":{},"id":"' + id(1) + '","workspace_id":"' + id(2) + '","contact":{"id":"' + id(3) + '"}}'),
  ],
  ['unknown contact member', variant((t) => (t.contact.x = 1))],
  ['unknown message member', variant((t) => (t.messages[0].x = 1))],
  ['bad id', variant((t) => (t.id = 'thr_1'))],
  ['uuid of an unknown version', variant((t) => (t.id = '00000001-1c1e-9c1e-8c1e-0b5e5a5e1c1e'))],
  ['nil uuid', variant((t) => (t.workspace_id = '00000000-0000-0000-0000-000000000000'))],
  ['subject a number', variant((t) => (t.subject = 3))],
  ['subject null', variant((t) => (t.subject = null))],
  ['bad status', variant((t) => (t.status = 'archived'))],
  ['status null', variant((t) => (t.status = null))],
  ['unread a string', variant((t) => (t.unread = 'yes'))],
  ['starred null', variant((t) => (t.starred = null))],
  ['no contact', variant((t) => delete t.contact)],
  ['contact null', variant((t) => (t.contact = null))],
  ['contact name a number', variant((t) => (t.contact.name = 1))],
  ['messages not a list', variant((t) => (t.messages = {}))],
  ['messages null', variant((t) => (t.messages = null))],
  ['message not an object', variant((t) => (t.messages[1] = 'hi'))],
  ['bad channel', variant((t) => (t.messages[0].channel = 'sms'))],
  ['bad direction', variant((t) => (t.messages[0].direction = 'in'))],
  ['body null', variant((t) => (t.messages[0].body = null))],
  ['no created_at', variant((t) => delete t.messages[0].created_at)],
  ['timestamp with an offset', variant((t) => (t.messages[0].created_at = '2024-01-01T01:00:00+01:00'))],
  ['timestamp without milliseconds', variant((t) => (t.messages[0].created_at = '2024-01-01T00:00:00Z'))],
  ['canonical-looking impossible date', variant((t) => (t.messages[0].created_at = '2023-02-29T00:00:00.000Z'))],
  ['month 13', variant((t) => (t.messages[0].created_at = '2024-13-01T00:00:00.000Z'))],
  ['hour 24', variant((t) => (t.messages[0].created_at = '2024-01-01T24:00:00.000Z'))],
];

describe('plainThread (the hand check of a fixture thread)', () => {
  it.each(VARIANTS)(
    '%s: takes only what the schema takes, and gives the same record, member order included',
    (_n, v) => {
      const schema = ThreadSchema.safeParse(v);
      const plain = plainThread(v);
      if (plain !== undefined) {
        expect(schema.success).toBe(true);
        expect(JSON.stringify(plain)).toBe(JSON.stringify(schema.data));
      }
    },
  );

  it('takes the common cases itself (complete, defaults left out, other key order)', () => {
    for (const [, v] of VARIANTS.slice(0, 3)) expect(plainThread(v)).toBeDefined();
    expect(plainThread(VARIANTS[1][1])).toEqual({
      id: id(1),
      workspace_id: id(2),
      subject: null,
      status: 'open',
      unread: false,
      starred: false,
      contact: { id: id(3), name: null, email: null, phone: null },
      messages: [],
    });
  });
});

describe('a bulk seed keeps the threads’ messages as snapshot lines', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => void ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());

  /** A fixture of `n` threads, each with two messages listed newest first. */
  function fixture(name: string, n: number, first = 0): string {
    const threads = Array.from({ length: n }, (_, i) => ({
      id: id(first + i + 10),
      workspace_id: id(2),
      contact: { id: id(3) },
      messages: [
        {
          id: id(first + i + 100_000),
          channel: 'email',
          direction: 'outbound',
          body: `b${i}`,
          created_at: '2024-01-02T00:00:00.000Z',
        },
        {
          id: id(first + i + 200_000),
          channel: 'web_chat',
          direction: 'inbound',
          body: `a${i}`,
          created_at: '2024-01-01T00:00:00.000Z',
        },
      ],
    }));
    const file = path.join(dir, name);
    writeFileSync(file, JSON.stringify({ version: 1, workspaces: first ? [] : [{ id: id(2), name: 'W' }], threads }));
    return file;
  }
  const bodies = (s: Store, n: number) => s.get('thread_messages', id(n + 10))?.messages.map((m) => m.body);

  it('into an empty store, and again on top of a store reopened from disk (whose messages are lines of its file)', async () => {
    const file = path.join(dir, 'store.json');
    let s = await Store.open(file);
    expect(await seedStore(s, [fixture('a.json', 2000)])).toEqual({ workspaces: 1, threads: 2000 });
    expect(bodies(s, 1999)).toEqual(['a1999', 'b1999']);
    expect(s.get('threads', id(10))).toMatchObject({
      message_count: 2,
      last_message_body: 'b0',
      channels: ['web_chat', 'email'],
    });
    await s.close();
    s = await Store.open(file);
    expect(bodies(s, 0)).toEqual(['a0', 'b0']);
    // The second load cannot take its lines as they are (the collection reads another buffer): put one by one.
    await seedStore(s, [fixture('b.json', 2000, 5000)]);
    expect(bodies(s, 5000 + 1999)).toEqual(['a1999', 'b1999']);
    expect(bodies(s, 1999)).toEqual(['a1999', 'b1999']);
    await s.close();
    s = await Store.open(file);
    expect(s.count('thread_messages')).toBe(4000);
    expect(bodies(s, 5000)).toEqual(['a0', 'b0']);
    await s.close();
  });
});

describe('snapshotChunks with lines longer than a chunk', () => {
  it('hands runs of lines out as pieces of their buffer, the same bytes as copied, none longer than a chunk', async () => {
    const lines = new LazyLines(0);
    for (let i = 0; i < 500; i++) {
      const thread = { id: `t${i}`, messages: [{ body: 'x'.repeat(i % 40) }] };
      lines.add(thread);
    }
    const buf = lines.bytes();
    const section = {
      collection: 'thread_messages' as const,
      lazy: lines.ids.map((id, i) => [id, lines.offsets[i]] as [string, unknown]),
      source: buf,
    };
    const pieces: Buffer[] = [];
    for await (const c of snapshotChunks(3, [section], { chunkBytes: 4096 })) pieces.push(c);
    expect(Math.max(...pieces.map((c) => c.length))).toBeLessThanOrEqual(4096);
    expect(pieces.some((p) => p.buffer === buf.buffer)).toBe(true);
    const copied = Buffer.concat(await encodeSnapshot(3, [section]));
    expect(Buffer.concat(pieces).equals(copied)).toBe(true);
    let ids: string[] = [];
    readSnapshot(copied, { record: () => undefined, lazy: (_c, _b, got) => void (ids = got) });
    expect(ids).toEqual(lines.ids);
  });
});
