import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IndexName } from '../../src/store/indexes.js';
import type { CollectionName, RecordTypes } from '../../src/store/records.js';
import { expectProblem } from '../support/problem.js';
import { demo, inProcess, TestClock, type InProcess } from '../support/server.js';

// The list extensions of docs/cli.md#finding-ids-ls-commands-and-id-pickers, one row each: the same rules (paging, order, isolation,
// abilities, cursors) checked against every one. Records are written straight into the store,
// as a fixture import would: the API cannot create forms, pages, lists, offers or agents.

let s: InProcess;
beforeEach(async () => {
  s = await inProcess({ clock: new TestClock() });
});
afterEach(async () => {
  await s.close();
});

type Rec = { id: string; workspace_id: string };
interface Row {
  operationId: string;
  path: string;
  collection: CollectionName;
  /** The index its list pages, by workspace. */
  index: IndexName;
  /** The i-th record of a run, so that records made in order i = 0, 1, … list in that order. */
  make(workspace: string, i: number): Rec;
  keys: string[];
  /** The item a record lists as (from the record, and the store for derived counts). */
  item(rec: any): Record<string, unknown> | Promise<Record<string, unknown>>;
}

// Record i lists at position i: names ascend with i (by-name lists), updated_at descends with i
// (forms and pages, most recently updated first).
const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + (1000 - i) * 60_000).toISOString();
const name = (i: number) => `Item ${String(i).padStart(3, '0')}`;

const rows: Row[] = [
  {
    operationId: 'listForms',
    path: 'forms',
    collection: 'forms',
    index: 'formsByWorkspace',
    keys: ['field_count', 'id', 'name', 'updated_at'],
    make: (w, i) => ({
      id: randomUUID(),
      workspace_id: w,
      name: name(i),
      fields: [{ id: 'a', label: 'A', required: false }],
      settings: {},
      design: {},
      integrations: {},
      embed: {},
      updated_at: at(i),
    }),
    item: (r) => ({ id: r.id, name: r.name, field_count: r.fields.length, updated_at: r.updated_at }),
  },
  {
    operationId: 'listPages',
    path: 'pages',
    collection: 'pages',
    index: 'pagesByWorkspace',
    keys: ['id', 'name', 'published', 'slug', 'updated_at'],
    make: (w, i) => ({
      id: randomUUID(),
      workspace_id: w,
      name: name(i),
      slug: `p-${i}`,
      published: i % 2 === 0,
      template: 'custom',
      display_name: null,
      bio: null,
      seo_title: null,
      seo_description: null,
      aeo_summary: null,
      agent_instructions: null,
      schema_type: 'WebPage',
      chat: {},
      robots_index: true,
      llms_enabled: true,
      updated_at: at(i),
    }),
    item: (r) => ({ id: r.id, name: r.name, slug: r.slug, published: r.published, updated_at: r.updated_at }),
  },
  {
    operationId: 'listKnowledgeLists',
    path: 'knowledge-lists',
    collection: 'knowledge_lists',
    index: 'knowledgeListsByWorkspace',
    keys: ['article_count', 'id', 'name'],
    make: (w, i) => ({ id: randomUUID(), workspace_id: w, name: name(i) }),
    item: async (r) => ({
      id: r.id,
      name: r.name,
      article_count: await articleCount(r.id),
    }),
  },
  {
    operationId: 'listOffers',
    path: 'offers',
    collection: 'offers',
    index: 'offersByWorkspace',
    keys: ['active', 'currency', 'id', 'kind', 'title', 'unit_amount_minor'],
    make: (w, i) => ({
      id: randomUUID(),
      workspace_id: w,
      kind: 'fixed',
      title: name(i),
      currency: 'usd',
      unit_amount_minor: 1000 + i,
      active: i % 3 !== 0,
    }),
    item: (r) => ({
      id: r.id,
      kind: r.kind,
      title: r.title,
      currency: r.currency,
      unit_amount_minor: r.unit_amount_minor,
      active: r.active,
    }),
  },
  {
    operationId: 'listAgents',
    path: 'agents',
    collection: 'agents',
    index: 'agentsByWorkspace',
    keys: ['id', 'name'],
    make: (w, i) => ({ id: randomUUID(), workspace_id: w, name: name(i) }),
    item: (r) => ({ id: r.id, name: r.name }),
  },
];

/** How many articles a list holds, read through the store's interface (either engine). */
const articleCount = (list: string) => s.app.db.read((tx) => tx.count('articles', 'articlesByList', list));

const url = (row: Row, ws: string, q = '') => `/v1/workspaces/${ws}/${row.path}${q ? `?${q}` : ''}`;
const get = (u: string, token: string = demo.owner) => s.request({ url: u, token });
/** The workspace's records of the row's collection: its index's partition, read through the store's interface. */
const inWorkspace = (row: Row, ws: string) =>
  s.app.db.read(
    async (tx) =>
      (await tx.page(row.collection, row.index as never, { partition: ws, limit: 100_000 })).items as unknown as Rec[],
  );

/** Empties the collection in `ws` and puts `n` records made by the row, in one transaction. */
async function fill(row: Row, ws: string, n: number, from = 0): Promise<Rec[]> {
  const made = Array.from({ length: n }, (_, i) => row.make(ws, from + i));
  await s.app.db.write(async (tx) => {
    if (from === 0)
      for (const r of (await tx.page(row.collection, row.index as never, { partition: ws, limit: 100_000 })).items)
        await tx.delete(row.collection, r.id);
    for (const r of made) await tx.put(row.collection, r as RecordTypes[typeof row.collection]);
  });
  return made;
}

async function cursorOf(u: string): Promise<string> {
  const cursor = (await get(u)).json.meta.next_cursor;
  expect(cursor).toEqual(expect.any(String));
  return cursor;
}

async function everyPage(
  u: string,
  limit: number,
  between?: () => Promise<void>,
): Promise<{ ids: string[]; sizes: number[] }> {
  const ids: string[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  do {
    const res = await get(
      `${u}${u.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
      demo.ciWriter,
    );
    expect(res.status).toBe(200);
    ids.push(...res.json.data.map((x: { id: string }) => x.id));
    sizes.push(res.json.data.length);
    cursor = res.json.meta.next_cursor;
    await between?.();
  } while (cursor);
  return { ids, sizes };
}

describe.each(rows)('$operationId', (row) => {
  it("lists the demo workspace's records with exactly the item members of their areas' schemas (src/api/<area>/schemas.ts), and no other workspace's", async () => {
    const res = await get(url(row, demo.ws1));
    expect(res.status).toBe(200);
    const mine = await inWorkspace(row, demo.ws1);
    expect(mine.length).toBeGreaterThanOrEqual(2);
    expect(res.json.data).toHaveLength(mine.length);
    for (const item of res.json.data) expect(Object.keys(item).sort()).toEqual(row.keys);
    expect(new Set(res.json.data.map((x: { id: string }) => x.id))).toEqual(new Set(mine.map((r) => r.id)));
    const byId = new Map(mine.map((r) => [r.id, r]));
    for (const item of res.json.data) expect(item).toEqual(await row.item(byId.get(item.id)));
    expect(res.json.meta.next_cursor).toBeNull();
  });

  it('60 records with limit 25: pages of 25, 25, 10, each once, in the documented order', async () => {
    const made = await fill(row, demo.ws3, 60);
    const { ids, sizes } = await everyPage(url(row, demo.ws3), 25);
    expect(sizes).toEqual([25, 25, 10]);
    expect(ids).toEqual(made.map((r) => r.id));
  });

  it('records added between page requests cause no duplicate and no skip of what was there', async () => {
    const made = await fill(row, demo.ws3, 30);
    let n = 0;
    // Half sort before the cursor, half after it: neither may repeat or hide an original.
    const { ids } = await everyPage(url(row, demo.ws3), 7, async () => {
      await fill(row, demo.ws3, 1, -1 - n++);
      await fill(row, demo.ws3, 1, 500 + n++);
    });
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of made) expect(ids).toContain(r.id);
  });

  it('ties on the sort key are broken by id: a page boundary inside a tie skips nothing', async () => {
    const tied = Array.from({ length: 12 }, () => row.make(demo.ws3, 7));
    await fill(row, demo.ws3, 0);
    await s.app.db.write(async (tx) => {
      for (const r of tied) await tx.put(row.collection, r as never);
    });
    const { ids, sizes } = await everyPage(url(row, demo.ws3), 5);
    expect(sizes).toEqual([5, 5, 2]);
    expect(new Set(ids)).toEqual(new Set(tied.map((r) => r.id)));
  });

  // [case, token, workspace, status, code]
  it.each([
    ['no token', undefined, demo.ws1, 401, 'unauthenticated'],
    ['expired token', demo.expired, demo.ws1, 401, 'invalid_token'],
    ['engagements-only token (no content:read)', demo.support, demo.ws1, 403, 'insufficient_ability'],
    ['a workspace the user is not a member of', demo.ciWriter, demo.ws1, 403, 'not_a_member'],
    ['a workspace that does not exist', demo.owner, '00000000-0000-4000-8000-000000000000', 403, 'not_a_member'],
    ['a malformed workspace id', demo.owner, 'not-a-uuid', 404, 'workspace_not_found'],
    ['content:read is enough', demo.contentReader, demo.ws1, 200, ''],
  ] as const)('%s: the status and code of its row', async (_name, token, ws, status, code) => {
    const res = await s.request({ url: url(row, ws), token });
    if (code) expectProblem(res, status, code, url(row, ws));
    else expect(res.status).toBe(status);
  });

  it.each([
    ['garbage', async (): Promise<string> => 'not-a-cursor!'],
    ['truncated', async (): Promise<string> => (await cursorOf(url(row, demo.ws1, 'limit=1'))).slice(0, 12)],
    ["listListings' cursor", async (): Promise<string> => cursorOf(`/v1/workspaces/${demo.ws1}/lists?limit=1`)],
    [
      "another workspace's cursor (ws2 of the same user)",
      async (): Promise<string> => cursorOf(url(row, demo.ws2, 'limit=1')),
    ],
  ] as const)('a bad cursor (%s) is 400 invalid_cursor', async (_name, cursorFor) => {
    await fill(row, demo.ws1, 3);
    await fill(row, demo.ws2, 3);
    const cursor = await cursorFor();
    expectProblem(await get(url(row, demo.ws1, `cursor=${cursor}`)), 400, 'invalid_cursor');
  });

  it('limit=101 is 422 naming `limit`', async () => {
    const p = expectProblem(await get(url(row, demo.ws1, 'limit=101')), 422, 'validation_failed');
    expect(Object.keys(p.errors)).toEqual(['limit']);
  });
});

describe('listForms and listPages order', () => {
  it('most recently updated first; never updated (null) last, by id', async () => {
    const res = await get(url(rows[0], demo.ws1, 'limit=100'));
    const times = res.json.data.map((f: { updated_at: string | null }) => f.updated_at);
    const dated = times.filter((t: string | null) => t !== null);
    expect(dated).toEqual([...dated].sort().reverse());
    expect(times.slice(dated.length).every((t: string | null) => t === null)).toBe(true);
  });

  it('an updated page moves to the top', async () => {
    await s.request({
      method: 'PATCH',
      url: `/v1/workspaces/${demo.ws1}/pages/${demo.pageHoliday}`,
      token: demo.owner,
      json: { bio: 'x' },
    });
    expect((await get(url(rows[1], demo.ws1))).json.data[0].id).toBe(demo.pageHoliday);
  });
});

describe('listPages?published=', () => {
  it.each([
    ['true', true],
    ['false', false],
  ] as const)('published=%s lists only those pages, paged within the filter', async (q, want) => {
    const made = await fill(rows[1], demo.ws3, 40);
    const { ids } = await everyPage(url(rows[1], demo.ws3, `published=${q}`), 6);
    expect(ids).toEqual(
      made.filter((p) => (p as unknown as { published: boolean }).published === want).map((p) => p.id),
    );
  });

  it('a page that changes state leaves one filter for the other', async () => {
    const onlyUnpublished = async () =>
      (await get(url(rows[1], demo.ws1, 'published=false'))).json.data.map((p: { id: string }) => p.id);
    expect(await onlyUnpublished()).toContain(demo.pageHoliday);
    await s.request({
      method: 'PATCH',
      url: `/v1/workspaces/${demo.ws1}/pages/${demo.pageHoliday}`,
      token: demo.owner,
      json: { published: true },
    });
    expect(await onlyUnpublished()).not.toContain(demo.pageHoliday);
    expect((await get(url(rows[1], demo.ws1, 'published=true'))).json.data.map((p: { id: string }) => p.id)).toContain(
      demo.pageHoliday,
    );
  });

  it.each(['yes', '1', 'TRUE', ''])('published=%s is 422 naming `published`', async (v) => {
    const p = expectProblem(await get(url(rows[1], demo.ws1, `published=${v}`)), 422, 'validation_failed');
    expect(Object.keys(p.errors)).toEqual(['published']);
  });

  it('a cursor of the unfiltered list does not page a filtered one (400)', async () => {
    await fill(rows[1], demo.ws3, 10);
    const cursor = (await get(url(rows[1], demo.ws3, 'limit=2'), demo.ciWriter)).json.meta.next_cursor;
    expectProblem(
      await get(url(rows[1], demo.ws3, `published=true&cursor=${cursor}`), demo.ciWriter),
      400,
      'invalid_cursor',
    );
  });
});

describe('listKnowledgeLists', () => {
  it("counts each list's articles, restores included as one article", async () => {
    const before = (await get(url(rows[2], demo.ws1))).json.data.find(
      (l: { id: string }) => l.id === demo.knowledgeList,
    );
    expect(before.article_count).toBe(await articleCount(demo.knowledgeList));
    expect(before.article_count).toBeGreaterThan(0);
    const restore = `/v1/workspaces/${demo.ws1}/knowledge-lists/${demo.knowledgeList}/articles/${demo.article3Versions}/versions/1/restore`;
    expect((await s.request({ method: 'POST', url: restore, token: demo.owner })).status).toBe(201);
    const after = (await get(url(rows[2], demo.ws1))).json.data.find(
      (l: { id: string }) => l.id === demo.knowledgeList,
    );
    expect(after.article_count).toBe(before.article_count);
  });
});

describe('getListing', () => {
  const one = (ws: string, id: string, token: string = demo.owner) =>
    s.request({ url: `/v1/workspaces/${ws}/lists/${id}`, token });

  it('answers the listing exactly as createListing returned it', async () => {
    const created = await s.request({
      method: 'POST',
      url: `/v1/workspaces/${demo.ws1}/lists`,
      token: demo.owner,
      json: { title: 'FAQ', template_slug: 'faq', items: [{ title: 'Q', description: 'A' }, { title: 'R' }] },
    });
    expect(created.status).toBe(201);
    const res = await one(demo.ws1, created.json.data.id, demo.contentReader);
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual(created.json.data);
  });

  it.each([
    ["another workspace's listing", demo.ws2, 'ws1-listing', 404, 'listing_not_found'],
    ['an unknown id', demo.ws1, '00000000-0000-4000-8000-000000000000', 404, 'listing_not_found'],
    ['a malformed id', demo.ws1, 'nope', 404, 'listing_not_found'],
  ] as const)('%s: the status and code of its row', async (_n, ws, id, status, code) => {
    const listing = (
      await s.app.db.read((tx) => tx.page('listings', 'listingsByWorkspace', { partition: demo.ws1, limit: 1 }))
    ).items[0].id;
    const res = await one(ws, id === 'ws1-listing' ? listing : id);
    expectProblem(res, status, code);
  });

  it.each([
    ['engagements-only token', demo.support, 403, 'insufficient_ability'],
    ['non-member', demo.ciWriter, 403, 'not_a_member'],
    ['no token', undefined, 401, 'unauthenticated'],
  ] as const)('%s: the status and code of its row', async (_n, token, status, code) => {
    const listing = (
      await s.app.db.read((tx) => tx.page('listings', 'listingsByWorkspace', { partition: demo.ws1, limit: 1 }))
    ).items[0].id;
    expectProblem(await s.request({ url: `/v1/workspaces/${demo.ws1}/lists/${listing}`, token }), status, code);
  });
});
