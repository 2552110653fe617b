import { describe, expect, it } from 'vitest';
import { demoPerTest, refusedUnchanged } from '../../support/api.js';
import { moveClock } from '../../support/oauth.js';
import { demo } from '../../support/server.js';

const t = demoPerTest();
const { request, expectUnchanged, stampedDuring } = t;

const LIST_WS2 = 'd0f90159-28a7-4444-9b58-0db2b35c52b4';
const ARTICLE_WS2 = 'b1e141f9-6644-410f-8a44-f68b88aefa33';
const listUrl = (list: string = demo.knowledgeList, ws: string = demo.ws1) =>
  `/v1/workspaces/${ws}/knowledge-lists/${list}/articles`;
const articleUrl = (article: string, list: string = demo.knowledgeList, ws: string = demo.ws1) =>
  `${listUrl(list, ws)}/${article}`;
const restoreUrl = (
  article: string,
  version: string | number,
  list: string = demo.knowledgeList,
  ws: string = demo.ws1,
) => `${articleUrl(article, list, ws)}/versions/${version}/restore`;
const restore = (
  article: string,
  version: string | number,
  json?: unknown,
  token: string = demo.owner,
  url = restoreUrl(article, version),
) => request({ method: 'POST', url, token, json });
const stored = async (id: string) => (await t.db.read((tx) => tx.get('articles', id)))!;

describe('listArticles', () => {
  it('lists the articles of the list, newest article first, with the item shape of src/api/knowledge/schemas.ts', async () => {
    const res = await request({ url: listUrl(), token: demo.contentReader });
    expect(res.status).toBe(200);
    expect(res.json.meta.next_cursor).toBeNull();
    expect(res.json.data).toEqual([
      {
        id: demo.articleNeverPublished,
        title: 'Allergens',
        status: 'draft',
        current_version: 1,
        published_version: null,
        updated_at: '2026-10-20T12:00:00.000Z',
      },
      {
        id: demo.article4Versions,
        title: 'Bean subscription: how it works',
        status: 'published',
        current_version: 4,
        published_version: 3,
        updated_at: '2026-11-19T17:00:00.000Z',
      },
      {
        id: demo.article3Versions,
        title: 'Refunds and remakes',
        status: 'published',
        current_version: 3,
        published_version: 2,
        updated_at: '2026-11-12T16:45:00.000Z',
      },
    ]);
  });

  const pageThrough = async (between?: (page: number) => Promise<void>) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let page = 0;
    do {
      const res: any = await request({
        url: `${listUrl()}?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        token: demo.owner,
      });
      expect(res.status).toBe(200);
      expect(res.json.data).toHaveLength(1);
      seen.push(res.json.data[0].id);
      cursor = res.json.meta.next_cursor;
      await between?.(++page);
    } while (cursor && page < 10);
    return seen;
  };

  it('pages with limit and cursor, every article once', async () => {
    expect(await pageThrough()).toEqual([demo.articleNeverPublished, demo.article4Versions, demo.article3Versions]);
  });

  it('a restore between pages neither skips nor repeats an article', async () => {
    const seen = await pageThrough(async (page) => {
      if (page === 1) await restore(demo.article3Versions, 1, { publish: true });
    });
    expect(seen).toEqual([demo.articleNeverPublished, demo.article4Versions, demo.article3Versions]);
  });

  it.each([
    ['limit 0', '?limit=0', 422, 'validation_failed'],
    ['limit 101', '?limit=101', 422, 'validation_failed'],
    ['a tampered cursor', '?cursor=abc', 400, 'invalid_cursor'],
  ])('%s: the status and code of its row', async (_n, q, status, code) => {
    const res = await request({ url: `${listUrl()}${q}`, token: demo.owner });
    expect(res.status).toBe(status);
    expect(res.json.code).toBe(code);
  });

  it("a restore updates its article's item: title, status, versions, updated_at", async () => {
    t.clock.current = new Date('2026-11-22T12:00:00.000Z');
    const restored = await stampedDuring(
      () => restore(demo.articleNeverPublished, 1, { publish: true }),
      (r) => r.json.data.version.created_at,
    );
    const res = await request({ url: listUrl(), token: demo.owner });
    expect(res.json.data[0]).toEqual({
      id: demo.articleNeverPublished,
      title: 'Allergens',
      status: 'published',
      current_version: 2,
      published_version: 2,
      updated_at: restored.json.data.version.created_at,
    });
  });

  it.each([
    ['unknown list', listUrl('00000000-0000-4000-8000-000000000000')],
    ['malformed list id', listUrl('help')],
    ["another workspace's list, through a workspace the caller belongs to", listUrl(LIST_WS2, demo.ws1)],
  ])('%s: 404 knowledge_list_not_found', async (_n, url) => {
    const res = await request({ url, token: demo.owner });
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('knowledge_list_not_found');
  });

  it.each([
    ['no content:read', demo.support, 'insufficient_ability'],
    ['not a member', demo.ciWriter, 'not_a_member'],
  ])('%s: 403', async (_n, token, code) => {
    const res = await request({ url: listUrl(), token });
    expect(res.status).toBe(403);
    expect(res.json.code).toBe(code);
  });
});

describe('getArticle (extension)', () => {
  it('returns the summary, the list id and every version in number order', async () => {
    const res = await request({ url: articleUrl(demo.article3Versions), token: demo.contentReader });
    expect(res.status).toBe(200);
    const a = res.json.data;
    expect(a).toMatchObject({
      id: demo.article3Versions,
      list_id: demo.knowledgeList,
      current_version: 3,
      published_version: 2,
      status: 'published',
    });
    expect(a.versions.map((v: any) => [v.number, v.published, v.restored_from])).toEqual([
      [1, true, null],
      [2, true, null],
      [3, false, null],
    ]);
    expect(Object.keys(a.versions[0]).sort()).toEqual([
      'body',
      'created_at',
      'id',
      'number',
      'published',
      'restored_from',
      'title',
    ]);
  });

  it.each([
    ['unknown article', articleUrl('00000000-0000-4000-8000-000000000000'), 'article_not_found'],
    ['an article of another list', articleUrl(ARTICLE_WS2), 'article_not_found'],
    [
      'unknown list',
      articleUrl(demo.article3Versions, '00000000-0000-4000-8000-000000000000'),
      'knowledge_list_not_found',
    ],
  ])('%s: 404 %s', async (_n, url, code) => {
    const res = await request({ url, token: demo.owner });
    expect(res.status).toBe(404);
    expect(res.json.code).toBe(code);
  });
});

describe('restoreArticleVersion', () => {
  it('creates version N+1 with the restored title and body, current, not published by default (201)', async () => {
    const before = await stored(demo.article3Versions);
    const res = await stampedDuring(
      () => restore(demo.article3Versions, 1, {}),
      (r) => r.json.data.version.created_at,
    );
    expect(res.status).toBe(201);
    const at = res.json.data.version.created_at;
    const v1 = before.versions[0];
    expect(res.json.data.version).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      number: 4,
      title: v1.title,
      body: v1.body,
      restored_from: 1,
      published: false,
      created_at: at,
    });
    expect(res.json.data.article).toEqual({
      id: demo.article3Versions,
      title: v1.title,
      status: 'published',
      current_version: 4,
      published_version: 2,
      updated_at: at,
    });
    const after = await stored(demo.article3Versions);
    expect(after.versions).toHaveLength(4);
    expect(after.versions.slice(0, 3)).toEqual(before.versions);
  });

  it('with no body at all, publish defaults to false', async () => {
    const res = await restore(demo.article3Versions, 2);
    expect(res.status).toBe(201);
    expect(res.json.data.version.published).toBe(false);
    expect(res.json.data.article.published_version).toBe(2);
  });

  it('with publish true, the new version is also the published one; earlier versions never change', async () => {
    const before = await stored(demo.article4Versions);
    const res = await restore(demo.article4Versions, 1, { publish: true });
    expect(res.status).toBe(201);
    expect(res.json.data.version).toMatchObject({
      number: 5,
      restored_from: 1,
      published: true,
      title: 'Bean subscription',
      body: before.versions[0].body,
    });
    expect(res.json.data.article).toMatchObject({
      current_version: 5,
      published_version: 5,
      status: 'published',
      title: 'Bean subscription',
    });
    expect((await stored(demo.article4Versions)).versions.slice(0, 4)).toEqual(before.versions);
  });

  it('publishing a restore of a never-published article makes it published', async () => {
    const res = await restore(demo.articleNeverPublished, 1, { publish: true });
    expect(res.json.data.article).toMatchObject({ status: 'published', current_version: 2, published_version: 2 });
    const draft = await restore(demo.articleNeverPublished, 1, { publish: false });
    expect(draft.json.data.article).toMatchObject({ status: 'published', current_version: 3, published_version: 2 });
  });

  it('twice in a row gives N+1 and N+2 with the right restored_from', async () => {
    const first = await restore(demo.article3Versions, 1);
    await moveClock(t.db, t.clock, 60_000);
    const second = await stampedDuring(
      () => restore(demo.article3Versions, 2, { publish: true }),
      (r) => r.json.data.version.created_at,
    );
    // A minute later on the test clock (JSON engine); never before the first on any engine.
    expect(Date.parse(second.json.data.version.created_at)).toBeGreaterThanOrEqual(
      Date.parse(first.json.data.version.created_at),
    );
    expect(first.json.data.version).toMatchObject({ number: 4, restored_from: 1, published: false });
    expect(second.json.data.version).toMatchObject({
      number: 5,
      restored_from: 2,
      published: true,
    });
    expect(second.json.data.article).toMatchObject({ current_version: 5, published_version: 5 });
    // Restoring a restored version records the version it was restored from.
    const third = await restore(demo.article3Versions, 4);
    expect(third.json.data.version).toMatchObject({ number: 6, restored_from: 4, title: 'Refund policy' });
    const read = await request({ url: articleUrl(demo.article3Versions), token: demo.owner });
    expect(read.json.data.versions.map((v: any) => [v.number, v.restored_from, v.published])).toEqual([
      [1, null, true],
      [2, null, true],
      [3, null, false],
      [4, 1, false],
      [5, 2, true],
      [6, 4, false],
    ]);
  });

  it('accepts the version by number or by id, with the same result', async () => {
    const v2 = (await stored(demo.article3Versions)).versions[1];
    const byNumber = await restore(demo.article3Versions, 2);
    const byId = await restore(demo.article3Versions, v2.id);
    expect(byId.status).toBe(201);
    expect(byNumber.json.data.version).toMatchObject({ number: 4, restored_from: 2, title: v2.title, body: v2.body });
    expect(byId.json.data.version).toMatchObject({ number: 5, restored_from: 2, title: v2.title, body: v2.body });
    // A restored version's own id works too.
    const again = await restore(demo.article3Versions, byId.json.data.version.id);
    expect(again.json.data.version).toMatchObject({ number: 6, restored_from: 5 });
  });

  it('20 concurrent restores of one article get 20 distinct, consecutive numbers', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => restore(demo.article3Versions, (i % 3) + 1, { publish: i % 2 === 0 })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    const numbers = results.map((r) => r.json.data.version.number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => i + 4));
    for (const [i, r] of results.entries()) expect(r.json.data.version.restored_from).toBe((i % 3) + 1);
    const versions = (await stored(demo.article3Versions)).versions;
    expect(versions.map((v) => v.number)).toEqual(Array.from({ length: 23 }, (_, i) => i + 1));
    expect(new Set(versions.map((v) => v.id)).size).toBe(23);
  });

  // A restart of the JSON file store (its journal replayed); a PostgreSQL engine holds nothing to lose.
  it.skipIf(process.env.WCM_TEST_STORE === 'postgres')('a restore survives a restart of the store', async () => {
    await restore(demo.article3Versions, 1, { publish: true });
    const reopened = await t.s.reopen();
    try {
      const a = (await reopened.read((tx) => tx.get('articles', demo.article3Versions)))!;
      expect(a.versions.map((v) => [v.number, v.restored_from, v.published])).toEqual([
        [1, null, true],
        [2, null, true],
        [3, null, false],
        [4, 1, true],
      ]);
    } finally {
      await reopened.close();
      // inProcess's close() closes its own (already closed) store again: harmless.
    }
  });

  describe('not found: each its own code, nothing created', () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    it.each([
      ['unknown version number', restoreUrl(demo.article3Versions, 9), 'version_not_found'],
      ['version 0', restoreUrl(demo.article3Versions, 0), 'version_not_found'],
      ['unknown version id', restoreUrl(demo.article3Versions, unknown), 'version_not_found'],
      ['a version id of another article', restoreUrl(demo.article3Versions, 'VERSION_OF_OTHER'), 'version_not_found'],
      ['version neither number nor id', restoreUrl(demo.article3Versions, 'latest'), 'version_not_found'],
      ['unknown article', restoreUrl(unknown, 1), 'article_not_found'],
      ['an article of another list', restoreUrl(ARTICLE_WS2, 1), 'article_not_found'],
      ['unknown list', restoreUrl(demo.article3Versions, 1, unknown), 'knowledge_list_not_found'],
      [
        "another workspace's list, through a workspace the caller belongs to",
        restoreUrl(ARTICLE_WS2, 1, LIST_WS2, demo.ws1),
        'knowledge_list_not_found',
      ],
    ])('%s', async (_n, rawUrl, code) => {
      const url = rawUrl.replace('VERSION_OF_OTHER', (await stored(demo.article4Versions)).versions[0].id);
      const before = [await stored(demo.article3Versions), await stored(ARTICLE_WS2)];
      const res = await request({ method: 'POST', url, token: demo.owner, json: { publish: true } });
      expect(res.status).toBe(404);
      expect(res.json.code).toBe(code);
      expect([await stored(demo.article3Versions), await stored(ARTICLE_WS2)]).toEqual(before);
    });
  });

  it.each([
    ['publish not a boolean', { publish: 'yes' }, 'publish'],
    ['an unknown member', { publish: true, version: 2 }, 'version'],
  ])('%s: 422, nothing created', async (_n, json, path) => {
    const before = await stored(demo.article3Versions);
    const res = await restore(demo.article3Versions, 1, json);
    expect(res.status).toBe(422);
    expect(res.json.errors).toHaveProperty([path]);
    expectUnchanged(await stored(demo.article3Versions), before);
  });

  // [case, token, code, workspace]
  refusedUnchanged<[ws: string]>(
    [
      ['a token without content:write', demo.contentReader, 'insufficient_ability', demo.ws1],
      ["a workspace the token's user is not a member of", demo.ciWriter, 'not_a_member', demo.ws1],
    ],
    {
      stored: () => stored(demo.article3Versions),
      attempt: (token, ws) =>
        restore(
          demo.article3Versions,
          1,
          { publish: true },
          token,
          restoreUrl(demo.article3Versions, 1, demo.knowledgeList, ws),
        ),
      unchanged: expectUnchanged,
      async readBack() {
        const read = await request({ url: articleUrl(demo.article3Versions), token: demo.owner });
        expect(read.json.data).toMatchObject({ current_version: 3, published_version: 2 });
        expect(read.json.data.versions).toHaveLength(3);
      },
    },
  );

  it('a restored version gets a fresh uuid', async () => {
    const res = await restore(demo.article3Versions, 1);
    const ids = (await stored(demo.article3Versions)).versions.map((v) => v.id);
    expect(new Set(ids).size).toBe(4);
    expect(ids).toContain(res.json.data.version.id);
  });
});
