import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { refusedUnchanged } from '../../support/api.js';
import { demo, inProcess, TestClock, type InProcess } from '../../support/server.js';

let s: InProcess;
beforeEach(async () => {
  s = await inProcess({ clock: new TestClock() });
});
afterEach(async () => {
  await s.close();
});

const PAGE_WS2 = '50dc2aba-841a-4da0-9891-a1dd38cf8d76';
const pageUrl = (id: string = demo.pageAcme, ws: string = demo.ws1) => `/v1/workspaces/${ws}/pages/${id}`;
const patch = (json: unknown, token: string = demo.owner, url = pageUrl()) =>
  s.request({ method: 'PATCH', url, token, json });
/** Nothing was written: the same record object on the JSON engine, the same content on PostgreSQL (every read is a new object). */
const unchanged = (after: unknown, before: unknown) =>
  s.db.kind === 'json' ? expect(after).toBe(before) : expect(after).toEqual(before);
const stored = async (id: string = demo.pageAcme) => (await s.db.read((tx) => tx.get('pages', id)))!;

const str = (n: number) => 'x'.repeat(n);
const reply = (over: Record<string, unknown> = {}) => ({
  id: randomUUID(),
  label: 'Hours',
  event_label: 'hours',
  message: 'Hours?',
  featured: false,
  operation: 'message',
  ...over,
});
const replies = (n: number) => Array.from({ length: n }, () => reply());

describe('getPage (extension)', () => {
  it('returns the page with every field and without its workspace id', async () => {
    const res = await s.request({ url: pageUrl(), token: demo.contentReader });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json.data).sort()).toEqual(
      [
        'agent_instructions',
        'aeo_summary',
        'bio',
        'chat',
        'display_name',
        'id',
        'llms_enabled',
        'name',
        'published',
        'robots_index',
        'schema_type',
        'seo_description',
        'seo_title',
        'slug',
        'template',
        'updated_at',
      ].sort(),
    );
    expect(res.json.data.chat.suggested_replies).toHaveLength(3);
  });

  it("another workspace's page is 404 page_not_found even for a member of both", async () => {
    const res = await s.request({ url: pageUrl(PAGE_WS2, demo.ws1), token: demo.owner });
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('page_not_found');
  });
});

describe('updatePage: every constraint at its boundary', () => {
  // [case, body, accepted, failing field path]
  const cases: Array<[string, Record<string, unknown>, boolean, string?]> = [
    ['name of 255', { name: str(255) }, true],
    ['name of 256', { name: str(256) }, false, 'name'],
    ['name null', { name: null }, false, 'name'],
    ['slug of lowercase, digits, _ and -', { slug: 'acme_coffee-2026' }, true],
    ['slug of 255', { slug: str(255) }, true],
    ['slug of 256', { slug: str(256) }, false, 'slug'],
    ['slug with a capital', { slug: 'Acme' }, false, 'slug'],
    ['slug with a space', { slug: 'acme coffee' }, false, 'slug'],
    ['slug with a dot', { slug: 'acme.coffee' }, false, 'slug'],
    ['empty slug', { slug: '' }, false, 'slug'],
    ['template custom', { template: 'custom' }, true],
    ['template whatsapp_contact', { template: 'whatsapp_contact' }, true],
    ['template google_business_contact', { template: 'google_business_contact' }, true],
    ['template contact alone', { template: 'contact' }, false, 'template'],
    ['template _contact', { template: '_contact' }, false, 'template'],
    ['template Custom', { template: 'Custom' }, false, 'template'],
    ['template whatsapp_contact_', { template: 'whatsapp_contact_' }, false, 'template'],
    ['template whatsapp-contact', { template: 'whatsapp-contact' }, false, 'template'],
    ['display_name of 255', { display_name: str(255) }, true],
    ['display_name of 256', { display_name: str(256) }, false, 'display_name'],
    ['bio of 500', { bio: str(500) }, true],
    ['bio of 501', { bio: str(501) }, false, 'bio'],
    ['seo_title of 255', { seo_title: str(255) }, true],
    ['seo_title of 256', { seo_title: str(256) }, false, 'seo_title'],
    ['seo_description of 500', { seo_description: str(500) }, true],
    ['seo_description of 501', { seo_description: str(501) }, false, 'seo_description'],
    ['aeo_summary of 2000', { aeo_summary: str(2000) }, true],
    ['aeo_summary of 2001', { aeo_summary: str(2001) }, false, 'aeo_summary'],
    ['agent_instructions of 2000', { agent_instructions: str(2000) }, true],
    ['agent_instructions of 2001', { agent_instructions: str(2001) }, false, 'agent_instructions'],
    ...['WebPage', 'ProfilePage', 'ContactPage', 'AboutPage', 'Organization', 'LocalBusiness', 'Service'].map(
      (t): [string, Record<string, unknown>, boolean] => [`schema_type ${t}`, { schema_type: t }, true],
    ),
    ['schema_type Person', { schema_type: 'Person' }, false, 'schema_type'],
    ['schema_type webpage (case matters)', { schema_type: 'webpage' }, false, 'schema_type'],
    ['published not a boolean', { published: 'true' }, false, 'published'],
    ['robots_index false', { robots_index: false }, true],
    ['llms_enabled not a boolean', { llms_enabled: 1 }, false, 'llms_enabled'],
    ['chat.greeting of 500', { chat: { greeting: str(500) } }, true],
    ['chat.greeting of 501', { chat: { greeting: str(501) } }, false, 'chat.greeting'],
    ['10 suggested replies', { chat: { suggested_replies: replies(10) } }, true],
    ['11 suggested replies', { chat: { suggested_replies: replies(11) } }, false, 'chat.suggested_replies'],
    [
      'reply id not a uuid',
      { chat: { suggested_replies: [reply({ id: 'hours' })] } },
      false,
      'chat.suggested_replies.0.id',
    ],
    ['reply id missing', { chat: { suggested_replies: [{ label: 'Hours' }] } }, false, 'chat.suggested_replies.0.id'],
    ['reply label of 255', { chat: { suggested_replies: [reply({ label: str(255) })] } }, true],
    [
      'reply label of 256',
      { chat: { suggested_replies: [reply({ label: str(256) })] } },
      false,
      'chat.suggested_replies.0.label',
    ],
    ['reply event_label of 255', { chat: { suggested_replies: [reply({ event_label: str(255) })] } }, true],
    [
      'reply event_label of 256',
      { chat: { suggested_replies: [reply({ event_label: str(256) })] } },
      false,
      'chat.suggested_replies.0.event_label',
    ],
    ['reply message of 2000', { chat: { suggested_replies: [reply({ message: str(2000) })] } }, true],
    [
      'reply message of 2001',
      { chat: { suggested_replies: [reply({ message: str(2001) })] } },
      false,
      'chat.suggested_replies.0.message',
    ],
    [
      'reply featured not a boolean',
      { chat: { suggested_replies: [reply({ featured: 'yes' })] } },
      false,
      'chat.suggested_replies.0.featured',
    ],
    [
      'reply operation other than message',
      { chat: { suggested_replies: [reply({ operation: 'link' })] } },
      false,
      'chat.suggested_replies.0.operation',
    ],
    [
      'unknown member of a reply',
      { chat: { suggested_replies: [reply({ url: 'https://x' })] } },
      false,
      'chat.suggested_replies.0.url',
    ],
    ['unknown member of chat', { chat: { avatar: 'x' } }, false, 'chat.avatar'],
    ['unknown member', { theme: 'dark' }, false, 'theme'],
    ['empty body', {}, false, '(body)'],
  ];
  it.each(cases)('%s', async (_name, body, accepted, path) => {
    const before = await stored();
    const res = await patch(body);
    if (accepted) {
      expect(res.status).toBe(200);
      const [key, value] = Object.entries(body)[0];
      if (key === 'chat') expect(res.json.data.chat).toMatchObject(value as object);
      else expect(res.json.data[key]).toEqual(value);
      expect(res.json.data).toEqual({ ...(await stored()), workspace_id: undefined });
      return;
    }
    expect(res.status).toBe(422);
    expect(res.json.code).toBe('validation_failed');
    expect(res.json.errors).toHaveProperty([path!]);
    unchanged(await stored(), before);
  });

  it('names every failing field at once', async () => {
    const res = await patch({ name: str(256), slug: 'Bad Slug', bio: str(501), schema_type: 'Person' });
    expect(res.status).toBe(422);
    expect(Object.keys(res.json.errors).sort()).toEqual(['bio', 'name', 'schema_type', 'slug']);
  });
});

describe('updatePage: semantics', () => {
  it('members sent replace, members not sent stay, and the whole page comes back', async () => {
    const before = await stored();
    const res = await patch({ name: 'Acme home', bio: 'New bio' });
    expect(res.status).toBe(200);
    const { workspace_id: _w, ...rest } = before;
    expect(res.json.data).toEqual({
      ...rest,
      name: 'Acme home',
      bio: 'New bio',
      // The store's time: the test's clock on the JSON engine; the database's (running) on PostgreSQL.
      updated_at: s.db.kind === 'json' ? '2026-11-22T12:00:00.000Z' : expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('published moves the state to the value sent, both ways', async () => {
    expect((await stored(demo.pageHoliday)).published).toBe(false);
    const url = pageUrl(demo.pageHoliday);
    expect((await patch({ published: true }, demo.owner, url)).json.data.published).toBe(true);
    expect((await stored(demo.pageHoliday)).published).toBe(true);
    expect((await patch({ published: true }, demo.owner, url)).json.data.published).toBe(true);
    expect((await patch({ published: false }, demo.owner, url)).json.data.published).toBe(false);
    expect((await stored(demo.pageHoliday)).published).toBe(false);
  });

  it('null clears a text member', async () => {
    const res = await patch({ agent_instructions: null, seo_title: null });
    expect(res.status).toBe(200);
    expect((await stored()).agent_instructions).toBeNull();
    expect((await stored()).seo_title).toBeNull();
    expect((await stored()).bio).not.toBeNull();
  });

  describe('chat merges by JSON Merge Patch', () => {
    it('a key sent as null is removed; a key not sent stays', async () => {
      const replies = (await stored()).chat.suggested_replies;
      const res = await patch({ chat: { greeting: null } });
      expect(res.status).toBe(200);
      expect((await stored()).chat).toEqual({ suggested_replies: replies });
      expect(res.json.data.chat).toEqual({ suggested_replies: replies });
    });

    it('a greeting sent replaces the greeting and keeps the replies', async () => {
      const replies = (await stored()).chat.suggested_replies;
      await patch({ chat: { greeting: 'Hello!' } });
      expect((await stored()).chat).toEqual({ greeting: 'Hello!', suggested_replies: replies });
    });

    it('suggested_replies sent replace the list whole (arrays do not merge)', async () => {
      const one = reply({ label: 'Only one' });
      await patch({ chat: { suggested_replies: [one] } });
      expect((await stored()).chat.suggested_replies).toEqual([one]);
      expect((await stored()).chat.greeting).toBe('Hi! Looking for opening hours, an order, or a class booking?');
      await patch({ chat: { suggested_replies: null } });
      expect((await stored()).chat).toEqual({
        greeting: 'Hi! Looking for opening hours, an order, or a class booking?',
      });
    });

    it('chat: null empties chat; a page with no chat gains one', async () => {
      await patch({ chat: null });
      expect((await stored()).chat).toEqual({});
      const url = pageUrl(demo.pageHoliday);
      await patch({ chat: { greeting: 'Gifts!' } }, demo.owner, url);
      expect((await stored(demo.pageHoliday)).chat).toEqual({ greeting: 'Gifts!' });
    });
  });

  describe('not found and refusals change nothing', () => {
    it.each([
      ['unknown page', pageUrl('00000000-0000-4000-8000-000000000000')],
      ['malformed page id', pageUrl('home')],
      ["another workspace's page, through a workspace the caller belongs to", pageUrl(PAGE_WS2, demo.ws1)],
    ])('%s: 404 page_not_found', async (_n, url) => {
      const before = await stored(PAGE_WS2);
      const res = await patch({ name: 'x' }, demo.owner, url);
      expect(res.status).toBe(404);
      expect(res.json.code).toBe('page_not_found');
      unchanged(await stored(PAGE_WS2), before);
    });

    refusedUnchanged<[]>(
      [
        ['a token without content:write (content:read only)', demo.contentReader, 'insufficient_ability'],
        ['a token without any content ability', demo.support, 'insufficient_ability'],
      ],
      {
        stored: () => stored(),
        attempt: (token) => patch({ published: false, name: 'Hijacked' }, token),
        unchanged,
        async readBack() {
          const readBack = await s.request({ url: pageUrl(), token: demo.owner });
          expect(readBack.json.data.published).toBe(true);
          expect(readBack.json.data.name).toBe('Acme Coffee home');
        },
      },
    );

    it('a workspace the user is not a member of: 403 not_a_member, nothing changed', async () => {
      // ci-writer (Dee) has content:write but belongs only to Civic Help Desk.
      const before = await stored();
      const res = await patch({ published: false }, demo.ciWriter);
      expect(res.status).toBe(403);
      expect(res.json.code).toBe('not_a_member');
      unchanged(await stored(), before);
    });
  });
});
