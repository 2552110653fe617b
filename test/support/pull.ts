/*
 * `wcm pull` tests: a proxy in front of a real server (operations left out, faults injected),
 * and the comparison of every list and get operation between two servers.
 */
import http from 'node:http';
import { expect } from 'vitest';
import { routes } from '../../src/contract/table.js';

export interface ProxyRule {
  /** The path after /v1 (no query). */
  path: string;
  method: string;
  /** How many requests the proxy has passed so far (this one included). */
  n: number;
}

/**
 * An HTTP proxy to `target` (a base URL ending in /v1): `allow` decides which requests pass (the
 * rest get 404 route_not_found, as a server without those routes answers); `fault` may answer
 * instead (a 429, a 500) or hold the request back (`delayMs`).
 */
export async function proxy(
  target: string,
  o: {
    allow?: (r: ProxyRule) => boolean;
    fault?: (r: ProxyRule) => { status: number; headers?: Record<string, string>; body?: unknown } | undefined;
    delayMs?: number;
  } = {},
): Promise<{ url: string; requests: ProxyRule[]; close(): Promise<void> }> {
  const t = new URL(target);
  const requests: ProxyRule[] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url!, 'http://x');
    const rule: ProxyRule = { path: u.pathname.replace(/^\/v1/, ''), method: req.method!, n: requests.length + 1 };
    requests.push(rule);
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/problem+json', ...headers });
      res.end(JSON.stringify(body));
    };
    const go = () => {
      if (o.allow && !o.allow(rule))
        return answer(404, { title: 'Not Found', status: 404, code: 'route_not_found', detail: 'No such route.' });
      const f = o.fault?.(rule);
      if (f) return answer(f.status, f.body ?? { title: 'fault', status: f.status, code: 'fault' }, f.headers);
      const up = http.request(
        {
          host: t.hostname,
          port: t.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: t.host },
        },
        (r) => {
          res.writeHead(r.statusCode!, r.headers);
          r.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    };
    if (o.delayMs) setTimeout(go, o.delayMs);
    else go();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The operations that a pull does not carry over, and why (so the comparison leaves them out). */
export const NOT_COMPARED: Record<string, string> = {
  getMe: 'the copy has its own owner and token',
  listOAuthApps: 'OAuth state is not copied',
  listOAuthGrants: 'OAuth state is not copied',
};

async function getJson(base: string, token: string, p: string): Promise<any> {
  const res = await fetch(base + p, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as any;
  return { status: res.status, body };
}

/** A response with what may differ between two servers taken out: request ids, the host in dashboard URLs. */
function comparable(body: any): unknown {
  return JSON.parse(
    JSON.stringify({
      ...body,
      meta: { ...body.meta, request_id: undefined, next_cursor: !!body.meta?.next_cursor },
    }).replace(/"dashboard_url":"https?:\/\/[^/"]+/g, '"dashboard_url":"ORIGIN'),
  );
}

/** Every page of a list on both servers, compared; the items of the whole list (from `a`). */
async function samePages(a: Side, b: Side, p: string, limit = 7): Promise<any[]> {
  const all: any[] = [];
  let ca: string | null = null;
  let cb: string | null = null;
  for (let page = 0; ; page++) {
    const q = (c: string | null) =>
      `${p}${p.includes('?') ? '&' : '?'}limit=${limit}${c ? `&cursor=${encodeURIComponent(c)}` : ''}`;
    const [ra, rb]: any[] = await Promise.all([getJson(a.base, a.token, q(ca)), getJson(b.base, b.token, q(cb))]);
    expect(ra.status, `${p} page ${page}`).toBe(200);
    expect(comparable(rb.body), `${p} page ${page}`).toEqual(comparable(ra.body));
    all.push(...ra.body.data);
    ca = ra.body.meta.next_cursor;
    cb = rb.body.meta.next_cursor;
    if (!ca) return all;
  }
}

async function sameGet(a: Side, b: Side, p: string): Promise<void> {
  const [ra, rb] = await Promise.all([getJson(a.base, a.token, p), getJson(b.base, b.token, p)]);
  expect(ra.status, p).toBe(200);
  expect(rb.status, p).toBe(200);
  expect(comparable(rb.body), p).toEqual(comparable(ra.body));
}

export interface Side {
  base: string;
  token: string;
}

/**
 * Every list (every page, with filters) and get operation of the workspace, the same on both
 * sides; returns the operations it called, which must be every GET of the contract but NOT_COMPARED.
 */
export async function compareWorkspace(a: Side, b: Side, ws: string): Promise<Set<string>> {
  const seen = new Set<string>();
  const w = `/workspaces/${ws}`;
  const list = async (op: string, p: string) => (seen.add(op), samePages(a, b, p));
  const get = async (op: string, p: string) => (seen.add(op), sameGet(a, b, p));

  await list('listListingTemplates', '/setup/listing-templates');
  for (const l of await list('listListings', `${w}/lists`)) await get('getListing', `${w}/lists/${l.id}`);
  for (const f of await list('listForms', `${w}/forms`)) await get('getForm', `${w}/forms/${f.id}`);
  for (const p of await list('listPages', `${w}/pages`)) await get('getPage', `${w}/pages/${p.id}`);
  await list('listPages', `${w}/pages?published=true`);
  await list('listPages', `${w}/pages?published=false`);
  for (const kl of await list('listKnowledgeLists', `${w}/knowledge-lists`))
    for (const ar of await list('listArticles', `${w}/knowledge-lists/${kl.id}/articles`))
      await get('getArticle', `${w}/knowledge-lists/${kl.id}/articles/${ar.id}`);
  const threads = new Set<string>();
  for (const view of ['inbox', 'unread', 'starred', 'closed']) {
    for (const t of await list('listThreads', `${w}/threads?view=${view}`)) threads.add(t.id);
    for (const channel of ['web_chat', 'email', 'whatsapp', 'form'])
      await list('listThreads', `${w}/threads?view=${view}&channel=${channel}`);
  }
  await list('listInboxThreads', `${w}/inbox-threads?view=inbox`);
  await list('listThreads', `${w}/threads?view=starred&q=order`);
  for (const id of threads) await get('getThread', `${w}/threads/${id}`);
  await list('listBookings', `${w}/bookings`);
  for (const status of ['pending', 'confirmed', 'cancelled'])
    await list('listBookings', `${w}/bookings?status=${status}`);
  await list('listVoiceInteractions', `${w}/voice-interactions`);
  for (const kind of ['call', 'voice_message'])
    await list('listVoiceInteractions', `${w}/voice-interactions?kind=${kind}`);
  await list('listOffers', `${w}/offers`);
  await list('listAgents', `${w}/agents`);
  return seen;
}

/** The contract's read operations (GET, not public), by operationId. */
export const READ_OPERATIONS = Object.entries(routes)
  .filter(([, r]) => r.method === 'GET' && !r.path.startsWith('/public'))
  .map(([op]) => op);
