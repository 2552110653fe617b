import { describe, expect, it } from 'vitest';
import { generateThreads } from '../../support/generate-threads.mjs';
import { eng, engagementPerFile, t, writeEngagementFixture } from '../../support/engagement.js';
import { inProcess, tempDir } from '../../support/server.js';
import type { FullThread } from '../../../src/store/threads.js';
import { dbFullThread, removeThread, workspaceThreads, writeThread } from '../../support/threads.js';

const server = engagementPerFile();

const threads = `/v1/workspaces/${eng.wsA}/threads`;
const get = (url: string, token: string = eng.token) => server.s.request({ url, token });
const ids = (res: { json: { data: Array<{ id: string }> } }) => res.json.data.map((x) => x.id);

describe('listThreads: views and channels', () => {
  // Expected ids follow the fixture's doc comment: newest last message first, id breaking ties.
  it.each([
    ['', [5, 2, 7, 1, 6]],
    ['view=inbox', [5, 2, 7, 1, 6]],
    ['view=unread', [5, 1]],
    ['view=starred', [5, 2, 3]],
    ['view=closed', [4, 3]],
    ['channel=email', [7, 1]],
    ['channel=whatsapp', [5, 1]],
    ['channel=web_chat', [2]],
    ['channel=form', []],
    ['view=closed&channel=web_chat', [4]],
    ['view=closed&channel=form', [3]],
    ['view=starred&channel=form', [3]],
    ['view=unread&channel=whatsapp', [5, 1]],
    ['view=unread&channel=email', [1]],
    ['view=starred&channel=email', []],
  ])('?%s → %j', async (query, expected) => {
    const res = await get(`${threads}?${query}`);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(expected.map(t));
    expect(res.json.meta.next_cursor).toBeNull();
  });

  it('shapes items exactly as src/api/engagement/schemas.ts lists them', async () => {
    const res = await get(`${threads}?view=unread`);
    const t1 = res.json.data[1];
    expect(t1).toEqual({
      id: t(1),
      contact: {
        id: '50000000-0000-4000-8000-000000000001',
        name: 'Person 1',
        email: 'person1@example.test',
        phone: null,
      },
      channels: ['email', 'whatsapp'],
      subject: 'Subject 1',
      status: 'open',
      unread: true,
      starred: false,
      last_message_at: '2025-03-01T11:00:00.000Z',
      last_message_preview: 'Parcel landed safely, thanks!',
      message_count: 2,
    });
  });

  it('gives a thread without messages null last_message_at and preview, and sorts it last', async () => {
    const res = await get(`${threads}?view=inbox`);
    const last = res.json.data[res.json.data.length - 1];
    expect(last).toMatchObject({
      id: t(6),
      channels: [],
      last_message_at: null,
      last_message_preview: null,
      message_count: 0,
      subject: null,
    });
  });

  it('cuts a long last message to a one-line preview of 140 characters ending in …', async () => {
    const body = `Line one\n\n${'word '.repeat(60)}`;
    const t7 = (await dbFullThread(server.s.app.db, t(7)))!;
    await server.s.app.db.write((tx) =>
      writeThread(tx, {
        ...t7,
        id: t(70),
        messages: [{ ...t7.messages[0], id: '40000000-0000-4000-8000-000000000070', body }],
      }),
    );
    try {
      const res = await get(`${threads}?channel=email`);
      const preview = res.json.data.find((x: { id: string }) => x.id === t(70)).last_message_preview as string;
      // Whitespace collapses; 139 characters are kept (a trailing space dropped), then `…`.
      expect(preview).toBe(`Line one ${'word '.repeat(26).trimEnd()}…`);
      expect(Array.from(preview).length).toBeLessThanOrEqual(140);
    } finally {
      await server.s.app.db.write((tx) => removeThread(tx, t(70)));
    }
  });

  it('moves a thread between views and channels when it is replaced (index partitions follow the record)', async () => {
    const base = (await dbFullThread(server.s.app.db, t(7)))!;
    const x = {
      ...base,
      id: t(71),
      messages: base.messages.map((msg) => ({ ...msg, id: '40000000-0000-4000-8000-000000000071' })),
    };
    // Two writes with no read between: the second must find the first in the index to remove it.
    await server.s.app.db.write((tx) => writeThread(tx, x));
    await server.s.app.db.write((tx) =>
      writeThread(tx, { ...x, status: 'closed', starred: true, messages: [{ ...x.messages[0], channel: 'form' }] }),
    );
    try {
      expect(ids(await get(`${threads}?channel=email`))).toEqual([t(7), t(1)]);
      expect(ids(await get(`${threads}?view=closed`))).toEqual([t(4), t(71), t(3)]);
      expect(ids(await get(`${threads}?view=starred&channel=form`))).toEqual([t(71), t(3)]);
    } finally {
      await server.s.app.db.write((tx) => removeThread(tx, t(71)));
    }
    expect(ids(await get(`${threads}?view=closed`))).toEqual([t(4), t(3)]);
  });

  it("never shows another workspace's threads", async () => {
    const res = await get(`/v1/workspaces/${eng.wsB}/threads?view=starred`);
    expect(ids(res)).toEqual([t(8)]);
  });

  it('needs engagements:read', async () => {
    const res = await get(threads, eng.contentOnly);
    expect(res.status).toBe(403);
    expect(res.json.code).toBe('insufficient_ability');
  });
});

describe('listThreads: q', () => {
  it.each([
    ['contact name', 'zeLDA', [2]],
    ['contact email', 'ORCHID.mail', [5]],
    ['subject', 'Kettle Spout', [7]],
    ['last message', 'parcel LANDED', [1]],
    ['an earlier message (not searched)', 'mango', []],
    ['nothing', 'no such words', []],
  ])('matches %s: q=%j', async (_field, q, expected) => {
    const res = await get(`${threads}?q=${encodeURIComponent(q)}`);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(expected.map(t));
  });

  it('refuses a q holding U+0000 with 400 naming q (PostgreSQL text holds no NUL; both stores alike)', async () => {
    for (const q of ['zel\u0000da', 'ray\u0000orchid']) {
      const res = await get(`${threads}?q=${encodeURIComponent(q)}`);
      expect(res.status).toBe(400);
      expect(res.json.errors).toEqual({ q: ['Must not contain U+0000 (NUL).'] });
    }
  });

  it('combines q with view and channel', async () => {
    expect(ids(await get(`${threads}?view=starred&channel=web_chat&q=zelda`))).toEqual([t(2)]);
    expect(ids(await get(`${threads}?view=closed&q=zelda`))).toEqual([]);
  });

  it('accepts 200 characters and rejects 201 with 422 naming q', async () => {
    expect((await get(`${threads}?q=${'x'.repeat(200)}`)).status).toBe(200);
    const res = await get(`${threads}?q=${'x'.repeat(201)}`);
    expect(res.status).toBe(422);
    expect(res.json.code).toBe('validation_failed');
    expect(Object.keys(res.json.errors)).toEqual(['q']);
  });
});

describe('listThreads: bad query values', () => {
  it.each([
    ['view=archived', 'view'],
    ['channel=sms', 'channel'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['limit=2.5', 'limit'],
    ['sort=oldest', 'sort'],
    ['view=inbox&view=closed', 'view'],
  ])('?%s → 422 naming %s', async (query, param) => {
    const res = await get(`${threads}?${query}`);
    expect(res.status).toBe(422);
    expect(Object.keys(res.json.errors)).toContain(param);
  });

  it('rejects a tampered cursor, and a cursor of another filter, with 400 invalid_cursor', async () => {
    const first = await get(`${threads}?limit=2`);
    const cursor = first.json.meta.next_cursor as string;
    expect(cursor).toBeTypeOf('string');
    const tampered = Buffer.from(Buffer.from(cursor, 'base64url').toString().replace('2025', '2024')).toString(
      'base64url',
    );
    for (const url of [
      `${threads}?limit=2&cursor=${tampered}`,
      `${threads}?limit=2&view=starred&cursor=${cursor}`,
      `/v1/workspaces/${eng.wsB}/threads?limit=2&cursor=${cursor}`,
    ]) {
      const res = await get(url);
      expect(res.status).toBe(400);
      expect(res.json.code).toBe('invalid_cursor');
    }
  });
});

describe('the /inbox-threads alias', () => {
  const strip = (body: string) => body.replace(/"request_id":"[^"]+"/, '"request_id":"-"');
  it.each(['', 'view=unread', 'view=starred&channel=web_chat', 'q=person&limit=2', 'view=closed&limit=1'])(
    'answers ?%s byte for byte like /threads',
    async (query) => {
      const a = await get(`${threads}?${query}`);
      const b = await get(`/v1/workspaces/${eng.wsA}/inbox-threads?${query}`);
      expect(b.status).toBe(a.status);
      expect(strip(b.body)).toBe(strip(a.body));
      const { 'X-Request-Id': _a, ...ha } = a.headers;
      const { 'X-Request-Id': _b, ...hb } = b.headers;
      expect(hb).toEqual(ha);
    },
  );

  it('follows a cursor from /threads to the next page, the same as /threads does', async () => {
    const first = await get(`${threads}?limit=2`);
    const cursor = first.json.meta.next_cursor;
    const viaAlias = await get(`/v1/workspaces/${eng.wsA}/inbox-threads?limit=2&cursor=${cursor}`);
    expect(ids(viaAlias)).toEqual([t(7), t(1)]);
  });
});

describe('getThread', () => {
  it('returns the thread with its messages, oldest first', async () => {
    const res = await get(`${threads}/${t(1)}`);
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ id: t(1), message_count: 2, channels: ['email', 'whatsapp'] });
    expect(
      res.json.data.messages.map((x: { channel: string; direction: string; body: string; created_at: string }) => [
        x.channel,
        x.direction,
        x.body,
        x.created_at,
      ]),
    ).toEqual([
      ['email', 'inbound', 'A mango question from earlier', '2025-03-01T10:00:00.000Z'],
      ['whatsapp', 'inbound', 'Parcel landed safely, thanks!', '2025-03-01T11:00:00.000Z'],
    ]);
  });

  it.each([
    ["another workspace's thread", t(8)],
    ['an unknown id', t(99)],
    ['a malformed id', 'not-a-uuid'],
  ])('answers 404 thread_not_found for %s', async (_what, id) => {
    const res = await get(`${threads}/${id}`);
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('thread_not_found');
  });
});

describe('paging while threads arrive', () => {
  it('pages 250 threads by 100 with threads added between pages: no duplicates, nothing skipped', async () => {
    const { dir, cleanup } = tempDir();
    const p = await inProcess({
      fixtures: [
        writeEngagementFixture(dir, {
          threads: generateThreads({ count: 250, workspaceId: eng.wsA, seed: 7 }).threads.map((x: object) => ({
            ...x,
            status: 'open',
          })),
        }),
      ],
    });
    try {
      const url = `/v1/workspaces/${eng.wsA}/threads?limit=100`;
      const start = new Set((await workspaceThreads(p.app.db, eng.wsA)).map((x) => x.id));
      expect(start.size).toBe(250);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      let added = 0;
      do {
        const res = await p.request({ url: cursor ? `${url}&cursor=${cursor}` : url, token: eng.token });
        expect(res.status).toBe(200);
        seen.push(...res.json.data.map((x: { id: string }) => x.id));
        cursor = res.json.meta.next_cursor;
        pages++;
        // Between pages: threads newer than everything, older than everything, and one at the
        // cursor's exact time (the tie-break decides where it goes).
        const lastAt = res.json.data[res.json.data.length - 1]?.last_message_at as string;
        const extra = generateThreads({ count: 3, workspaceId: eng.wsA, seed: 100 + pages }).threads as Array<{
          id: string;
          status: string;
          messages: Array<{ created_at: string }>;
        }>;
        const times = ['2030-01-01T00:00:00.000Z', '2000-01-01T00:00:00.000Z', lastAt];
        await p.app.db.write(async (tx) => {
          for (const [i, x] of extra.entries()) {
            const messages = x.messages.map((msg) => ({ ...msg, created_at: times[i] }));
            await writeThread(tx, { ...x, status: 'open', messages } as unknown as FullThread);
          }
        });
        added += extra.length;
      } while (cursor && pages < 10);
      expect(added).toBeGreaterThan(0);
      expect(new Set(seen).size).toBe(seen.length);
      for (const id of start) expect(seen).toContain(id);
      expect(pages).toBeGreaterThanOrEqual(3);
    } finally {
      await p.close();
      cleanup();
    }
  });
});
