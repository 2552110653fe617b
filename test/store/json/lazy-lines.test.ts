import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LazyLines } from '../../../src/store/json/lazy-lines.js';
import { seedStore } from '../../support/seed-store.js';
import { readSnapshot } from '../../../src/store/json/snapshot.js';
import { encodeSnapshot, snapshotChunks } from '../../../src/store/json/snapshot-writer.js';
import { Store } from '../../../src/store/json/store.js';
import { tempDir } from '../../support/server.js';

// Threads' messages kept as snapshot lines (lazy-lines.ts) from a seed to the data file.
const id = (n: number) => `${String(n).padStart(8, '0')}-1c1e-4c1e-8c1e-0b5e5a5e1c1e`;

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
