import { describe, expect, it } from 'vitest';
import { demoPerTest } from '../../support/api.js';
import { moveClock } from '../../support/oauth.js';
import { demo } from '../../support/server.js';
import { expectProblem } from '../../support/problem.js';

const t = demoPerTest();
const { request, stampedDuring } = t;

const lists = `/v1/workspaces/${demo.ws1}/lists`;
const create = (json: unknown, token: string = demo.owner) => request({ method: 'POST', url: lists, token, json });
/** Every listing of the demo's workspaces, read through the store's interface (either engine), newest first per workspace. */
const allListings = () =>
  t.db.read(async (tx) =>
    (
      await Promise.all(
        [demo.ws1, demo.ws2, demo.ws3].map((w) =>
          tx.page('listings', 'listingsByWorkspace', { partition: w, limit: 100_000 }),
        ),
      )
    ).flatMap((p) => p.items),
  );
/** How many listings the store holds. */
const listingCount = () => t.db.read((tx) => tx.count('listings'));
const item = (title = 'Q', description?: string) => (description === undefined ? { title } : { title, description });

describe('createListing', () => {
  it('creates an unattached listing with 201 and the record shape of src/api/listings/schemas.ts', async () => {
    const res = await stampedDuring(
      () => create({ title: 'FAQ', template_slug: 'faq', items: [{ title: 'Q', description: 'A' }] }),
      (r) => r.json.data.created_at,
    );
    expect(res.status).toBe(201);
    expect(Object.keys(res.json.data).sort()).toEqual([
      'button_id',
      'created_at',
      'dashboard_url',
      'id',
      'items',
      'template_slug',
      'title',
    ]);
    expect(res.json.data.button_id).toBeNull();
    expect(res.json.data.items).toEqual([{ title: 'Q', description: 'A' }]);
    expect(res.json.data.dashboard_url).toBe(
      `http://localhost/dashboard/workspaces/${demo.ws1}/lists/${res.json.data.id}`,
    );
    expect(res.headers['X-Request-Id']).toBe(res.json.meta.request_id);
    expect((await t.db.read((tx) => tx.get('listings', res.json.data.id)))?.workspace_id).toBe(demo.ws1);
  });

  it('defaults items to []', async () => {
    const res = await create({ title: 'Links', template_slug: 'links' });
    expect(res.status).toBe(201);
    expect(res.json.data.items).toEqual([]);
  });

  // One row per limit of the seed: the boundary passes, one over fails and names the field.
  const ok = { title: 'T', template_slug: 'faq' };
  it.each([
    ['title of 255', { ...ok, title: 'x'.repeat(255) }, null],
    ['title of 256', { ...ok, title: 'x'.repeat(256) }, 'title'],
    ['empty title', { ...ok, title: '' }, 'title'],
    ['missing title', { template_slug: 'faq' }, 'title'],
    ['title not a string', { ...ok, title: 7 }, 'title'],
    ['50 items', { ...ok, items: Array.from({ length: 50 }, (_, i) => item(`Q${i}`)) }, null],
    ['51 items', { ...ok, items: Array.from({ length: 51 }, (_, i) => item(`Q${i}`)) }, 'items'],
    ['item title of 255', { ...ok, items: [item('y'.repeat(255))] }, null],
    ['item title of 256', { ...ok, items: [item('y'.repeat(256))] }, 'items.0.title'],
    ['item without title', { ...ok, items: [{ description: 'A' }] }, 'items.0.title'],
    ['item description of 2000', { ...ok, items: [item('Q', 'd'.repeat(2000))] }, null],
    ['item description of 2001', { ...ok, items: [item('Q'), item('Q', 'd'.repeat(2001))] }, 'items.1.description'],
    ['missing template_slug', { title: 'T' }, 'template_slug'],
    ['unknown template_slug', { ...ok, template_slug: 'recipes' }, 'template_slug'],
    ['items not an array', { ...ok, items: {} }, 'items'],
  ])('%s', async (_name, body, failing) => {
    const before = await listingCount();
    const res = await create(body);
    if (failing === null) {
      expect(res.status).toBe(201);
      expect(await listingCount()).toBe(before + 1);
    } else {
      const p = expectProblem(res, 422, 'validation_failed', lists);
      expect(Object.keys(p.errors)).toEqual([failing]);
      expect(await listingCount()).toBe(before);
    }
  });

  it.each(['faq', 'links', 'menu', 'services', 'team', 'pricing', 'hours'])(
    'accepts the catalog template %s',
    async (slug) => {
      const res = await create({ title: 'T', template_slug: slug });
      expect(res.status).toBe(201);
      expect(res.json.data.template_slug).toBe(slug);
    },
  );

  it('keeps 255 characters of multi-byte text intact', async () => {
    const title = 'é'.repeat(255);
    const res = await create({ title, template_slug: 'faq' });
    expect(res.status).toBe(201);
    expect(res.json.data.title).toBe(title);
  });
});

describe('the auth matrix', () => {
  const unknown = 'wcm_pat_unknownToken0123456789abcdefghijklmnopqr';
  // [case, token, createListing expectation, listListings expectation]
  const rows: Array<[string, string | undefined, [number, string], [number, string]]> = [
    ['no token', undefined, [401, 'unauthenticated'], [401, 'unauthenticated']],
    ['unknown token', unknown, [401, 'invalid_token'], [401, 'invalid_token']],
    ['expired token', demo.expired, [401, 'invalid_token'], [401, 'invalid_token']],
    ['revoked token', demo.revoked, [401, 'invalid_token'], [401, 'invalid_token']],
    [
      'missing ability (content:read only / engagements only)',
      'per-op',
      [403, 'insufficient_ability'],
      [403, 'insufficient_ability'],
    ],
    ['non-member (ci-writer is only in ws3)', demo.ciWriter, [403, 'not_a_member'], [403, 'not_a_member']],
    ['ok', 'per-op-ok', [201, ''], [200, '']],
  ];
  const tokenFor = (t: string | undefined, op: 'create' | 'list') => {
    if (t === 'per-op') return op === 'create' ? demo.contentReader : demo.support;
    if (t === 'per-op-ok') return op === 'create' ? demo.owner : demo.contentReader;
    return t;
  };

  it.each(rows)('createListing, %s', async (_name, t, [status, code]) => {
    const before = await allListings();
    const res = await request({
      method: 'POST',
      url: lists,
      token: tokenFor(t, 'create'),
      json: { title: 'Guarded', template_slug: 'faq' },
    });
    if (code) {
      expectProblem(res, status, code, lists);
      // A refused create changes nothing: the store and the list read back are as before.
      expect(await allListings()).toEqual(before);
      const back = await request({ url: `${lists}?limit=100`, token: demo.owner });
      expect(back.json.data.map((l: { title: string }) => l.title)).not.toContain('Guarded');
    } else {
      expect(res.status).toBe(status);
      expect(await listingCount()).toBe(before.length + 1);
    }
  });

  it.each(rows)('listListings, %s', async (_name, t, _create, [status, code]) => {
    const res = await request({ url: lists, token: tokenFor(t, 'list') });
    if (code) expectProblem(res, status, code, lists);
    else {
      expect(res.status).toBe(status);
      expect(res.json.data).toHaveLength(5);
    }
  });

  // To the millisecond on the test's clock (the JSON engine); on PostgreSQL the database's clock runs on.
  it.skipIf(process.env.WCM_TEST_STORE === 'postgres')(
    'a token is refused exactly from its expiry instant',
    async () => {
      // The support token (engagements only) expires at 2027-12-31T23:59:59Z: before, it authenticates
      // and fails on the ability; from that instant on, it no longer authenticates.
      t.clock.current = new Date('2027-12-31T23:59:58.999Z');
      expect((await request({ url: lists, token: demo.support })).json.code).toBe('insufficient_ability');
      t.clock.current = new Date('2027-12-31T23:59:59.000Z');
      expectProblem(await request({ url: lists, token: demo.support }), 401, 'invalid_token');
    },
  );
});

describe('listListings paging', () => {
  const ws = demo.ws3; // holds 1 listing in the demo fixture
  const url = `/v1/workspaces/${ws}/lists`;
  const token = demo.ciWriter;
  const add = async (title: string) => {
    await moveClock(t.db, t.clock, 1000);
    const res = await request({ method: 'POST', url, token, json: { title, template_slug: 'faq' } });
    expect(res.status).toBe(201);
    return res.json.data.id as string;
  };
  const page = async (q: string) => {
    const res = await request({ url: `${url}?${q}`, token });
    expect(res.status).toBe(200);
    return res.json as {
      data: Array<{ id: string; title: string; dashboard_url: string }>;
      meta: { next_cursor: string | null };
    };
  };

  it('60 listings with limit 25: pages of 25, 25, 10, no duplicate, null cursor at the end, newest first', async () => {
    const own = (await allListings()).filter((l) => l.workspace_id === ws);
    await t.db.write(async (tx) => {
      for (const l of own) await tx.delete('listings', l.id);
    });
    const created: string[] = [];
    for (let i = 0; i < 60; i++) created.push(await add(`L${i}`));
    const sizes: number[] = [];
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const p = await page(`limit=25${cursor ? `&cursor=${cursor}` : ''}`);
      sizes.push(p.data.length);
      seen.push(...p.data.map((x) => x.id));
      expect(Object.keys(p.data[0]).sort()).toEqual(['dashboard_url', 'id', 'title']);
      cursor = p.meta.next_cursor;
    } while (cursor);
    expect(sizes).toEqual([25, 25, 10]);
    expect(new Set(seen).size).toBe(60);
    expect(seen).toEqual([...created].reverse());
  });

  it('listings created between page requests cause no duplicate and no skip of what existed at the start', async () => {
    for (let i = 0; i < 59; i++) await add(`L${i}`);
    const existing = new Set((await page('limit=100')).data.map((x) => x.id));
    expect(existing.size).toBe(60);
    const seen: string[] = [];
    let cursor: string | null = null;
    let n = 0;
    do {
      const p = await page(`limit=25${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...p.data.map((x) => x.id));
      cursor = p.meta.next_cursor;
      // New ones sort first (newest first): they must not push old ones into the next page twice.
      await add(`new-${n++}-a`);
      await add(`new-${n++}-b`);
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of existing) expect(seen).toContain(id);
  });

  it('the same holds when new listings share the created_at of the page boundary', async () => {
    for (let i = 0; i < 30; i++) await add(`L${i}`);
    const first = await page('limit=10');
    // Same instant as everything created next: ties are broken by id, never by position.
    for (let i = 0; i < 10; i++)
      await request({ method: 'POST', url, token, json: { title: `tie-${i}`, template_slug: 'faq' } });
    const rest: string[] = [];
    let cursor = first.meta.next_cursor;
    while (cursor) {
      const p = await page(`limit=10&cursor=${cursor}`);
      rest.push(...p.data.map((x) => x.id));
      cursor = p.meta.next_cursor;
    }
    const all = [...first.data.map((x) => x.id), ...rest];
    expect(new Set(all).size).toBe(all.length);
    const original = (await allListings())
      .filter((l) => l.workspace_id === ws && !l.title.startsWith('tie-'))
      .map((l) => l.id);
    for (const id of original) expect(all).toContain(id);
  });

  it('default limit is 25', async () => {
    for (let i = 0; i < 30; i++) await add(`L${i}`);
    const p = await page('');
    expect(p.data).toHaveLength(25);
    expect(typeof p.meta.next_cursor).toBe('string');
  });

  it('limit 1 and 100 are accepted', async () => {
    expect((await page('limit=1')).data).toHaveLength(1);
    expect((await page('limit=100')).data).toHaveLength(1);
    expect((await page('limit=100')).meta.next_cursor).toBeNull();
  });

  it.each(['0', '101', 'abc', '2.5', '-1', ''])('limit=%s is 422 naming `limit`', async (limit) => {
    const res = await request({ url: `${url}?limit=${limit}`, token });
    const p = expectProblem(res, 422, 'validation_failed');
    expect(Object.keys(p.errors)).toEqual(['limit']);
  });

  it('a limit given twice is 422 naming `limit`', async () => {
    const res = await request({ url: `${url}?limit=2&limit=3`, token });
    expect(Object.keys(expectProblem(res, 422, 'validation_failed').errors)).toEqual(['limit']);
  });
});
