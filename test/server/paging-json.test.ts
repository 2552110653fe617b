import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../../src/server/app.js';
import { operations } from '../../src/contract/operations.js';
import { implement, type Handler } from '../../src/server/context.js';
import { cachedJson, JsonItem, pageRecords } from '../../src/server/paging.js';
import { splicedPage } from '../../src/server/response.js';
import type { ListingRecord } from '../../src/store/records.js';
import { demo, inProcess, type InProcess } from '../support/server.js';

// A list handler whose items come from the record alone, as plain objects or cached JSON text.
const shape = (r: ListingRecord) => ({ id: r.id, title: r.title, dashboard_url: `https://x/${r.id}` });
const cached = cachedJson(shape);
const handlerWith = (map: (r: ListingRecord) => ReturnType<typeof shape>): Record<string, Handler> =>
  Object.fromEntries([
    implement(operations.listListings, ({ params, query, db }) =>
      pageRecords(db, 'listingsByWorkspace', params.workspace, {
        scope: `l:${params.workspace}`,
        cursor: query.cursor,
        limit: query.limit,
        map,
      }),
    ),
  ]);

let s: InProcess;
beforeEach(async () => {
  s = await inProcess();
});
afterEach(async () => {
  await s.close();
});

const get = (app: App, url: string) =>
  app.handle({
    method: 'GET',
    url,
    headers: { host: 'localhost', authorization: `Bearer ${demo.owner}`, 'x-request-id': 'req_fixed' },
  });

describe('cached JSON page items', () => {
  it.each([1, 2, 100])('answer byte for byte what plain items answer (limit %i, every page)', async (limit) => {
    const plain = new App({ db: s.app.db, handlers: handlerWith(shape) });
    const fast = new App({ db: s.app.db, handlers: handlerWith(cached) });
    let url = `/v1/workspaces/${demo.ws1}/lists?limit=${limit}`;
    for (let pages = 0; pages < 50; pages++) {
      const [a, b] = [await get(plain, url), await get(fast, url)];
      expect(b.status).toBe(200);
      expect(b.body).toBe(a.body);
      expect(b.headers).toEqual(a.headers);
      const next = JSON.parse(a.body).meta.next_cursor;
      if (!next) return;
      url = `/v1/workspaces/${demo.ws1}/lists?limit=${limit}&cursor=${next}`;
    }
  });

  it('never serves a stale item: a replaced record is serialized again', async () => {
    const fast = new App({ db: s.app.db, handlers: handlerWith(cached) });
    const url = `/v1/workspaces/${demo.ws1}/lists?limit=100`;
    const first = JSON.parse((await get(fast, url)).body).data as Array<{ id: string; title: string }>;
    await s.app.db.write(async (tx) => {
      const target = (await tx.get('listings', first[0].id))!;
      await tx.put('listings', { ...target, title: 'Renamed after caching' });
    });
    const again = JSON.parse((await get(fast, url)).body).data as Array<{ id: string; title: string }>;
    expect(again.find((i) => i.id === first[0].id)?.title).toBe('Renamed after caching');
  });

  it('an empty page is the same envelope as before', async () => {
    const fast = new App({ db: s.app.db, handlers: handlerWith(cached) });
    await s.app.db.write(async (tx) => {
      const inWs2 = (await tx.page('listings', 'listingsByWorkspace', { partition: demo.ws2, limit: 1000 })).items;
      expect(inWs2.length).toBeGreaterThan(0);
      for (const l of inWs2) await tx.delete('listings', l.id);
    });
    const res = await get(fast, `/v1/workspaces/${demo.ws2}/lists`);
    expect(JSON.parse(res.body)).toEqual({ data: [], meta: { request_id: 'req_fixed', next_cursor: null } });
  });
});

describe('a spliced page response', () => {
  const items = [new JsonItem('{"id":"a","t":"say \\"hi\\""}'), new JsonItem('{"id":"b"}')];

  it('is its parts, its body and its page at once', () => {
    const res = splicedPage(200, 'req_x', items, { request_id: 'req_x', next_cursor: 'c1' });
    expect(Buffer.concat(res.parts!).toString()).toBe(
      '{"data":[{"id":"a","t":"say \\"hi\\""},{"id":"b"}],"meta":{"request_id":"req_x","next_cursor":"c1"}}',
    );
    expect(JSON.parse(res.body)).toEqual({
      data: [{ id: 'a', t: 'say "hi"' }, { id: 'b' }],
      meta: { request_id: 'req_x', next_cursor: 'c1' },
    });
    expect(res.page).toEqual({ items, nextCursor: 'c1' });
  });

  it('is no longer the page once its body or parts are replaced (an error put in its place, say)', () => {
    const replacedBody = splicedPage(200, 'req_x', items, { request_id: 'req_x', next_cursor: null });
    replacedBody.body = '{"title":"x"}';
    expect(replacedBody.parts).toBeUndefined();
    expect(replacedBody.page).toBeUndefined();
    expect(replacedBody.body).toBe('{"title":"x"}');
    const replacedParts = splicedPage(200, 'req_x', items, { request_id: 'req_x', next_cursor: null });
    replacedParts.parts = [Buffer.from('[]')];
    expect(replacedParts.body).toBe('[]');
    expect(replacedParts.page).toBeUndefined();
  });
});
