import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demo } from '../../support/server.js';
import {
  DEE_READS_ALL,
  dashboardEnv,
  EXTRA_THREADS,
  hostileListing,
  hostileThread,
  type DashboardEnv,
} from '../../support/dashboard.js';

/** Markup a hostile string would become if it were not escaped: a tag, or an event handler inside one. */
const MARKUP = /<(script|img|svg)|<[^>]*\son\w+=/i;
/** The one script every page loads (the dashboard's, from /assets): a page is checked without it. */
const OWN_SCRIPT = /<script src="\/assets\/dashboard\.js\?v=[0-9a-f]{10}" defer><\/script>/;
const withoutOwnScript = (body: string): string => {
  expect(body).toMatch(OWN_SCRIPT);
  return body.replace(OWN_SCRIPT, '');
};
const ws = (w: string, rest = '') => `/dashboard/workspaces/${w}${rest}`;
const list = demo.knowledgeList;

let env: DashboardEnv;
let ada: string; // member of Acme Coffee (owner) and Blue Fern Studio
let dee: string; // member of Civic Help Desk only
beforeAll(async () => {
  env = await dashboardEnv();
  ada = await env.signInAs('usr_ada');
  dee = await env.signInAs('usr_dee');
});
afterAll(() => env.close());

/** Every page of the dashboard for workspace 1 (Acme Coffee), with a phrase it must show. */
const ROUTES: Array<[string, string]> = [
  ['/dashboard', 'Acme Coffee'],
  [ws(demo.ws1), 'Open threads'],
  [ws(demo.ws1, '/lists'), 'Frequently asked questions'],
  [ws(demo.ws1, `/lists/${hostileListing}`), 'Items'],
  [ws(demo.ws1, '/forms'), 'Catering request'],
  [ws(demo.ws1, `/forms/${demo.formCatering}`), 'Number of guests'],
  [ws(demo.ws1, '/pages'), 'acme-coffee'],
  [ws(demo.ws1, `/pages/${demo.pageAcme}`), 'Public fields'],
  [ws(demo.ws1, '/knowledge'), 'Customer help'],
  [ws(demo.ws1, `/knowledge/${list}`), 'Refunds and remakes'],
  [ws(demo.ws1, `/knowledge/${list}/articles/${demo.article4Versions}`), 'Versions'],
  [ws(demo.ws1, '/threads'), 'Inbox'],
  [ws(demo.ws1, '/threads?view=closed'), 'Closed'],
  [ws(demo.ws1, `/threads/${demo.newestThread}`), 'Large order for Friday'],
  [ws(demo.ws1, '/bookings'), 'Home barista class'],
  [ws(demo.ws1, '/voice'), 'Market Street is open on Sunday'],
  [ws(demo.ws1, '/orders'), '$50.00'],
  [ws(demo.ws1, '/events'), 'Acme Barista Assistant'],
  [ws(demo.ws1, '/oauth'), 'Acme helpdesk agent'],
];

describe('every route', () => {
  it.each(ROUTES)('%s answers 200 with its content, the page headers and no token', async (url, phrase) => {
    const res = await env.page(url, ada);
    expect(res.status).toBe(200);
    expect(res.body).toContain(phrase);
    expect(res.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(res.headers['Content-Security-Policy']).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; script-src 'self'",
    );
    expect(res.headers['X-Frame-Options']).toBe('DENY');
    expect(res.headers['Cache-Control']).toBe('no-store');
    expect(withoutOwnScript(res.body)).not.toMatch(/<script/i);
    expect(res.body).not.toMatch(/wcm_(pat|oat|ort)_/);
    expect(res.body).not.toMatch(/\sstyle=/i);
  });

  it.each(ROUTES)('%s without a session redirects to sign-in and back', async (url) => {
    const res = await env.page(url);
    expect(res.status).toBe(303);
    expect(res.headers.Location).toBe(`/dashboard/sign-in?return_to=${encodeURIComponent(url)}`);
  });

  it.each(ROUTES.filter(([url]) => url !== '/dashboard'))(
    '%s is 404 to a member of another workspace, and names nothing of it',
    async (url) => {
      const res = await env.page(url, dee);
      expect(res.status).toBe(404);
      expect(res.body).toContain('Not found');
      expect(res.body).not.toContain('Acme Coffee');
    },
  );

  it('answers HEAD like GET and refuses other methods: the dashboard is read-only', async () => {
    expect((await env.page(ws(demo.ws1, '/threads'), ada, 'HEAD')).status).toBe(200);
    const post = await env.page(ws(demo.ws1, '/threads'), ada, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.Allow).toBe('GET, HEAD');
  });

  it.each([
    ws(demo.ws1, '/nothing'),
    ws(demo.ws1, '/threads/x/y'),
    '/dashboard/elsewhere',
    ws('not-a-uuid'),
    ws('00000000-0000-4000-8000-000000000000'),
  ])('%s is 404', async (url) => {
    expect((await env.page(url, ada)).status).toBe(404);
  });
});

describe('workspace isolation, as the API answers', () => {
  // A record of workspace 1 asked for under workspace 3 (where Dee is a member): the API says 404.
  it.each([
    ['threads', demo.newestThread, `/v1/workspaces/${demo.ws3}/threads/${demo.newestThread}`],
    [
      'knowledge',
      `${list}/articles/${demo.article4Versions}`,
      `/v1/workspaces/${demo.ws3}/knowledge-lists/${list}/articles/${demo.article4Versions}`,
    ],
    ['forms', demo.formCatering, `/v1/workspaces/${demo.ws3}/forms/${demo.formCatering}`],
    ['pages', demo.pageAcme, `/v1/workspaces/${demo.ws3}/pages/${demo.pageAcme}`],
    ['knowledge', list, `/v1/workspaces/${demo.ws3}/knowledge-lists/${list}/articles`],
    ['lists', hostileListing, null],
  ])('%s/%s under another workspace is 404 in the dashboard and the API', async (section, id, apiUrl) => {
    const res = await env.page(ws(demo.ws3, `/${section}/${id}`), dee);
    expect(res.status).toBe(404);
    expect(res.body).not.toContain('Acme');
    if (apiUrl) expect((await env.api(apiUrl, DEE_READS_ALL)).status).toBe(404);
  });

  it('lists only the workspaces the user belongs to', async () => {
    const res = await env.page('/dashboard', dee);
    expect(res.body).toContain('Civic Help Desk');
    expect(res.body).not.toContain('Acme Coffee');
    expect(res.body).not.toContain('Blue Fern Studio');
  });

  it("a workspace page carries only that workspace's threads", async () => {
    const res = await env.page(ws(demo.ws3, '/threads?view=closed'), dee);
    expect(res.status).toBe(200);
    expect(res.body).not.toContain('Large order for Friday');
  });
});

describe('escaping', () => {
  it('shows a thread full of markup as text', async () => {
    const res = await env.page(ws(demo.ws1, `/threads/${hostileThread}`), ada);
    expect(res.status).toBe(200);
    expect(res.body).toContain(
      '&lt;script&gt;window.__wcmPwned = &quot;script&quot;&lt;/script&gt;&lt;img src=x onerror=&quot;window.__wcmPwned = &#39;img&#39;&quot;&gt;',
    );
    expect(res.body).toContain(
      '&lt;script&gt;window.__wcmPwned = &quot;subject&quot;&lt;/script&gt;Help &amp; &quot;quotes&quot;',
    );
    expect(res.body).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(withoutOwnScript(res.body)).not.toMatch(MARKUP);
  });

  it.each([
    ws(demo.ws1, '/threads'),
    ws(demo.ws1, '/threads?view=starred'),
    ws(demo.ws1, '/lists'),
    ws(demo.ws1, `/lists/${hostileListing}`),
    ws(demo.ws1, '/orders'),
    ws(demo.ws1, `/threads?q=${encodeURIComponent('"><script>x</script>')}`),
  ])('%s shows markup as text', async (url) => {
    const res = await env.page(url, ada);
    expect(res.status).toBe(200);
    expect(withoutOwnScript(res.body)).not.toMatch(MARKUP);
  });
});

/** Thread ids of a dashboard inbox page, in order. */
const threadIds = (body: string) => [...body.matchAll(/href="threads\/([0-9a-f-]{36})"/g)].map((m) => m[1]);
const nextHref = (body: string) => /<a href="([^"]+)" rel="next">/.exec(body)?.[1]?.replaceAll('&amp;', '&');

describe('paging, as the API pages', () => {
  it('the inbox shows 50 rows and a next link that continues exactly where the API does', async () => {
    const first = await env.page(ws(demo.ws1, '/threads'), ada);
    const ids = threadIds(first.body);
    expect(ids).toHaveLength(50);
    const api = await env.api(`/v1/workspaces/${demo.ws1}/threads?limit=50`);
    expect(ids).toEqual(api.json.data.map((t: { id: string }) => t.id));
    const next = nextHref(first.body)!;
    expect(next).toBe(`${ws(demo.ws1, '/threads')}?cursor=${api.json.meta.next_cursor}`);

    const second = await env.page(next, ada);
    const rest = threadIds(second.body);
    expect(rest).toHaveLength(24 + EXTRA_THREADS + 1 - 50);
    expect(new Set([...ids, ...rest]).size).toBe(24 + EXTRA_THREADS + 1);
    expect(nextHref(second.body)).toBeUndefined();
    expect(second.body).toContain('First page');
  });

  it.each([
    ['view=unread', 'view=unread'],
    ['view=starred&channel=email', 'view=starred&channel=email'],
    ['channel=web_chat', 'channel=web_chat'],
    ['q=pager%201', 'q=pager%201'],
    ['view=closed&q=refund', 'view=closed&q=refund'],
  ])('filters %s show what the API lists', async (dash, apiQuery) => {
    const res = await env.page(`${ws(demo.ws1, '/threads')}?${dash}`, ada);
    const api = await env.api(`/v1/workspaces/${demo.ws1}/threads?limit=50&${apiQuery}`);
    expect(res.status).toBe(200);
    expect(threadIds(res.body)).toEqual(api.json.data.map((t: { id: string }) => t.id));
  });

  it('the next link keeps the filters', async () => {
    const res = await env.page(`${ws(demo.ws1, '/threads')}?channel=web_chat&q=pager`, ada);
    expect(threadIds(res.body)).toHaveLength(30);
    expect(nextHref(res.body)).toBeUndefined();
    const all = await env.page(`${ws(demo.ws1, '/threads')}?q=pager`, ada);
    expect(nextHref(all.body)).toMatch(/\?q=pager&cursor=/);
  });

  it.each([
    ['view=everything', '<code>view</code>'],
    ['channel=fax', '<code>channel</code>'],
    ['cursor=nonsense', 'cannot be decoded'],
    [`q=${'x'.repeat(201)}`, '<code>q</code>'],
  ])('%s is a 400 page that says what is wrong', async (query, says) => {
    const res = await env.page(`${ws(demo.ws1, '/threads')}?${query}`, ada);
    expect(res.status).toBe(400);
    expect(res.body).toContain(says);
  });

  it('a cursor of one filter is refused under another, as the API refuses it', async () => {
    const first = await env.page(ws(demo.ws1, '/threads'), ada);
    const cursor = /cursor=([^"&]+)/.exec(first.body)![1];
    expect((await env.page(`${ws(demo.ws1, '/threads')}?view=unread&cursor=${cursor}`, ada)).status).toBe(400);
  });
});

describe('what pages show', () => {
  it('a listing page is what its dashboard_url points at', async () => {
    const api = await env.api(`/v1/workspaces/${demo.ws1}/lists`);
    for (const l of api.json.data as Array<{ id: string; dashboard_url: string; title: string }>) {
      const url = new URL(l.dashboard_url);
      expect(url.origin).toBe('http://localhost');
      const res = await env.page(url.pathname, ada);
      expect(res.status, l.dashboard_url).toBe(200);
      expect(res.body).toContain(`<code>${l.dashboard_url}</code>`);
    }
  });

  it('article versions say which is current, which published, and what was restored', async () => {
    const restore = await env.app.handle({
      method: 'POST',
      url: `/v1/workspaces/${demo.ws1}/knowledge-lists/${list}/articles/${demo.article4Versions}/versions/1/restore`,
      headers: { host: 'localhost', authorization: `Bearer ${demo.owner}`, 'content-type': 'application/json' },
      body: '{"publish":false}',
    });
    expect(restore.status).toBe(201);
    const res = await env.page(ws(demo.ws1, `/knowledge/${list}/articles/${demo.article4Versions}`), ada);
    expect(res.body).toMatch(/v5<\/td>.*badge info">current<.*restored from v1/s);
    expect(res.body).toMatch(/v3<\/td>.*badge ok">published</s);
    expect(res.body).toContain('current version 5');
  });

  it('bookings show their own time zone', async () => {
    const res = await env.page(ws(demo.ws1, '/bookings'), ada);
    // 2026-11-26T09:30:00Z in Europe/Paris is 10:30 CET.
    expect(res.body).toMatch(/Thu, 26 Nov 2026, 10:30<\/time>&ndash;11:30 CET/);
    expect(res.body).toContain('Europe/Paris');
  });

  it('orders show their payment state and amounts in their currency', async () => {
    const res = await env.page(ws(demo.ws1, '/orders'), ada);
    expect(res.body).toContain('badge ok">paid<');
    expect(res.body).toContain('$50.00');
    expect(res.body).toContain('Home barista class voucher');
  });

  it("OAuth: the workspace's applications, the grants reaching it with their audience and state, never a secret", async () => {
    const acme = (await env.page(ws(demo.ws1, '/oauth'), ada)).body;
    expect(acme).toContain(demo.oauthAppAcme);
    expect(acme).not.toContain(demo.oauthAppBlueFern); // registered in Blue Fern Studio
    expect(acme).toContain('wcm (command line)'); // Ada's CLI login grant reaches Acme Coffee
    expect(acme).toContain('wcm-mcp');
    expect(acme).toContain('badge bad">revoked<');
    const blueFern = (await env.page(ws(demo.ws2, '/oauth'), ada)).body;
    expect(blueFern).toContain('Blue Fern booking sync');
    expect(blueFern).toContain('badge info">confidential<');
    expect(blueFern).not.toContain(demo.oauthAppBlueFernSecret);
    expect(blueFern).not.toMatch(/[0-9a-f]{64}/); // nor its hash
  });

  it('the overview counts what the API lists', async () => {
    const res = await env.page(ws(demo.ws1), ada);
    expect(res.body).toContain(
      `<span class="num">${24 + EXTRA_THREADS + 1}</span><span class="label">Open threads</span>`,
    );
    expect(res.body).toContain('<span class="num">6</span><span class="label">Listings</span>');
    // The dashboard fixture's order and the demo's own (fixtures/demo.json has one in Acme Coffee).
    expect(res.body).toContain('<span class="num">2</span><span class="label">Orders</span>');
  });
});

describe('/open/{id}: the page of any record, by id (what `wcm open ID` points at)', () => {
  it.each([
    [hostileListing, `/lists/${hostileListing}`],
    [demo.newestThread, `/threads/${demo.newestThread}`],
    [demo.formCatering, `/forms/${demo.formCatering}`],
    [demo.pageAcme, `/pages/${demo.pageAcme}`],
    [list, `/knowledge/${list}`],
    [demo.article3Versions, `/knowledge/${list}/articles/${demo.article3Versions}`],
    ['00000000-0000-4000-8000-000000006000', '/orders#order-00000000-0000-4000-8000-000000006000'],
  ])('%s redirects to %s', async (id, rest) => {
    const res = await env.page(ws(demo.ws1, `/open/${id}`), ada);
    expect(res.status).toBe(303);
    expect(res.headers.Location).toBe(ws(demo.ws1, rest));
  });

  it('an id of another workspace, or of nothing, is 404', async () => {
    expect((await env.page(ws(demo.ws3, `/open/${demo.newestThread}`), dee)).status).toBe(404);
    expect((await env.page(ws(demo.ws1, '/open/00000000-0000-4000-8000-0000000fffff'), ada)).status).toBe(404);
    expect((await env.page(ws(demo.ws1, `/open/${demo.newestThread}`), dee)).status).toBe(404);
  });

  it('pages can be filtered by published state, as listPages filters', async () => {
    const res = await env.page(ws(demo.ws1, '/pages?published=false'), ada);
    const api = await env.api(`/v1/workspaces/${demo.ws1}/pages?published=false`);
    expect(res.status).toBe(200);
    for (const p of api.json.data as Array<{ name: string }>) expect(res.body).toContain(p.name);
    expect(res.body).not.toContain('acme-coffee</code>');
  });
});
