import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, type ClientOptions } from '../../src/client/client.js';
import { EXIT, exitCodeOf } from '../../src/cli/errors.js';
import { ApiError, ClientError } from '../../src/client/errors.js';
import { connectProxy, deadPort, httpStub, problem, type Stub } from './stubs.js';

const TOKEN = 'wcm_pat_clientTestToken0123456789abcdefghijk';
const AGENT = '78877ec3-e7f9-4eb3-b628-2184a18c24a4';
const WS = '775050e9-98e8-4600-8d0f-afce4b67e137';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function stub(reply: Parameters<typeof httpStub>[0]): Promise<Stub> {
  const s = await httpStub(reply);
  closers.push(s.close);
  return s;
}

function client(base: string, o: Partial<ClientOptions> = {}): ApiClient {
  return new ApiClient({ baseUrl: base, token: TOKEN, userAgent: 'wcm/9.9.9', env: {}, ...o });
}

const ok = (data: unknown, next: string | null = null) => ({
  status: 200,
  body: { data, meta: { request_id: 'req_1', next_cursor: next } },
});

describe('retries', () => {
  it('waits for Retry-After on a 429, then succeeds', async () => {
    const s = await stub((_r, n) =>
      n === 1 ? { status: 429, headers: { 'retry-after': '1' }, body: problem(429, 'rate_limited') } : ok([]),
    );
    const started = Date.now();
    const res = await client(s.base).request({ method: 'GET', path: '/me' });
    expect(res.status).toBe(200);
    expect(s.requests).toHaveLength(2);
    expect(s.requests[1].at - s.requests[0].at).toBeGreaterThanOrEqual(950);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('gives up after the configured retries with exit code 6 and the last problem', async () => {
    const s = await stub(() => ({ status: 429, headers: { 'retry-after': '0' }, body: problem(429, 'rate_limited') }));
    const err = await client(s.base, { retries: 2 })
      .request({ method: 'GET', path: '/me' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(exitCodeOf(err)).toBe(EXIT.rateLimited);
    expect(err.info.attempts).toBe(3);
    expect(err.problem.code).toBe('rate_limited');
    expect(s.requests).toHaveLength(3);
  });

  it('backs off exponentially on a 503 without Retry-After', async () => {
    const s = await stub((_r, n) => (n < 3 ? { status: 503, body: problem(503, 'unavailable') } : ok({ fine: true })));
    const waits: number[] = [];
    const res = await client(s.base, { sleep: async (ms) => void waits.push(ms) }).request({
      method: 'GET',
      path: '/me',
    });
    expect(res.body).toEqual({ data: { fine: true }, meta: { request_id: 'req_1', next_cursor: null } });
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThanOrEqual(250);
    expect(waits[0]).toBeLessThan(350);
    expect(waits[1]).toBeGreaterThanOrEqual(500);
    expect(waits[1]).toBeLessThan(600);
  });

  it('does not wait for a Retry-After longer than the limit', async () => {
    const s = await stub(() => ({
      status: 429,
      headers: { 'retry-after': '120' },
      body: problem(429, 'rate_limited'),
    }));
    const waits: number[] = [];
    const err = await client(s.base, { maxRetryWaitMs: 5000, sleep: async (ms) => void waits.push(ms) })
      .request({ method: 'GET', path: '/me' })
      .catch((e) => e);
    expect(err.status).toBe(429);
    expect(waits).toEqual([]);
    expect(s.requests).toHaveLength(1);
  });

  it.each([
    ['GET', undefined, 3],
    ['POST', undefined, 0],
    ['POST', 'key-12345678', 3],
  ])('network error on %s (Idempotency-Key %s): %i retries, then exit 1', async (method, key, expectedRetries) => {
    const port = await deadPort();
    const waits: number[] = [];
    const err = await client(`http://127.0.0.1:${port}/v1`, { retries: 3, sleep: async (ms) => void waits.push(ms) })
      .request({ method, path: '/x', body: method === 'POST' ? {} : undefined, idempotencyKey: key })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ClientError);
    expect(err).not.toBeInstanceOf(ApiError);
    expect(exitCodeOf(err)).toBe(EXIT.failure);
    expect(err.message).toContain(`127.0.0.1:${port}`);
    expect(err.message).toContain('the connection was refused');
    expect(waits).toHaveLength(expectedRetries);
  });
});

describe('requests', () => {
  it('sends User-Agent, Accept and the bearer token; the token never reaches a debug line', async () => {
    const s = await stub(() => ok({ id: 'x' }));
    const lines: string[] = [];
    await client(s.base, { debug: (l) => lines.push(l) }).request({
      method: 'GET',
      path: '/me',
      query: { a: 1, b: undefined },
    });
    const h = s.requests[0].headers;
    expect(h['user-agent']).toBe('wcm/9.9.9');
    expect(h.accept).toBe('application/json');
    expect(h.authorization).toBe(`Bearer ${TOKEN}`);
    expect(s.requests[0].url).toBe('/v1/me?a=1');
    expect(lines.join('\n')).not.toContain(TOKEN);
    expect(lines).toContain('> authorization: Bearer [REDACTED]');
    expect(lines[0]).toBe(`> GET ${s.base}/me?a=1`);
    expect(lines.some((l) => /^< 200 OK \(\d+ ms\)$/.test(l))).toBe(true);
  });

  it('redacts the token even when a line would carry it (an echoed URL)', async () => {
    const s = await stub(() => ok({}));
    const lines: string[] = [];
    await client(s.base, { debug: (l) => lines.push(l) }).request({ method: 'GET', path: '/me', query: { q: TOKEN } });
    expect(lines.join('\n')).not.toContain(TOKEN);
    expect(lines[0]).toContain('q=[REDACTED]');
  });

  it('gives a public POST a generated Idempotency-Key, the same on every retry, and no Authorization', async () => {
    const s = await stub((_r, n) =>
      n === 1
        ? { status: 503, headers: { 'retry-after': '0' }, body: problem(503, 'unavailable') }
        : { status: 201, body: { data: { id: 'e' }, meta: { request_id: 'r' } } },
    );
    const res = await client(s.base).call('recordAgentChatOpened', { params: { agent: AGENT }, body: {} });
    expect(res.status).toBe(201);
    const [a, b] = s.requests.map((r) => r.headers['idempotency-key']);
    expect(a).toMatch(/^[\x21-\x7e]{8,120}$/);
    expect(b).toBe(a);
    expect(s.requests[0].headers.authorization).toBeUndefined();
    expect(s.requests[0].url).toBe(`/v1/public/agents/${AGENT}/analytics-events/opened`);
  });

  it('retries a 409 idempotency_key_in_use with the same key (the first request is still running), but not a 409 without a key', async () => {
    const s = await stub((_r, n) =>
      n === 1
        ? { status: 409, headers: { 'retry-after': '0' }, body: problem(409, 'idempotency_key_in_use') }
        : { status: 201, body: { data: { id: 'e' }, meta: { request_id: 'r' } } },
    );
    const res = await client(s.base).call('recordAgentChatOpened', {
      params: { agent: AGENT },
      body: {},
      idempotencyKey: 'key-in-flight-1',
    });
    expect(res.status).toBe(201);
    expect(s.requests.map((r) => r.headers['idempotency-key'])).toEqual(['key-in-flight-1', 'key-in-flight-1']);

    const plain = await stub(() => ({ status: 409, headers: { 'retry-after': '0' }, body: problem(409, 'conflict') }));
    await expect(client(plain.base).request({ method: 'POST', path: '/x', body: {} })).rejects.toBeInstanceOf(ApiError);
    expect(plain.requests).toHaveLength(1);
  });

  it('keeps a given Idempotency-Key', async () => {
    const s = await stub(() => ({ status: 201, body: { data: {}, meta: { request_id: 'r' } } }));
    await client(s.base).call('recordAgentChatOpened', {
      params: { agent: AGENT },
      body: {},
      idempotencyKey: 'my-key-0001',
    });
    expect(s.requests[0].headers['idempotency-key']).toBe('my-key-0001');
  });

  it('sends no Idempotency-Key on a workspace POST', async () => {
    const s = await stub(() => ({ status: 201, body: { data: {}, meta: { request_id: 'r' } } }));
    await client(s.base).call('createListing', {
      params: { workspace: WS },
      body: { title: 't', template_slug: 'faq' },
    });
    expect(s.requests[0].headers['idempotency-key']).toBeUndefined();
    expect(s.requests[0].headers['content-type']).toBe('application/json');
    expect(JSON.parse(s.requests[0].body)).toEqual({ title: 't', template_slug: 'faq' });
  });

  it('turns a non-JSON error body into a problem with the request id header', async () => {
    const s = await stub(() => ({ status: 502, headers: { 'x-request-id': 'req_gateway' }, body: 'upstream down' }));
    const err = await client(s.base, { retries: 0 })
      .request({ method: 'GET', path: '/me' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(exitCodeOf(err)).toBe(EXIT.failure);
    expect(err.problem).toMatchObject({ title: 'Bad Gateway', detail: 'upstream down', request_id: 'req_gateway' });
  });

  it('follows next_cursor page by page', async () => {
    const s = await stub((r) => {
      const cursor = new URL(r.url, 'http://x').searchParams.get('cursor');
      if (!cursor) return ok([1, 2], 'c1');
      if (cursor === 'c1') return ok([3, 4], 'c2');
      return ok([5], null);
    });
    const seen: number[] = [];
    for await (const page of client(s.base).pages<'listListings', number>('listListings', {
      params: { workspace: WS },
      query: { limit: 2 },
    }))
      seen.push(...page.data);
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(s.requests.map((r) => r.url)).toEqual([
      `/v1/workspaces/${WS}/lists?limit=2`,
      `/v1/workspaces/${WS}/lists?limit=2&cursor=c1`,
      `/v1/workspaces/${WS}/lists?limit=2&cursor=c2`,
    ]);
  });

  it('stops when a server hands back the cursor it was given', async () => {
    const s = await stub(() => ok([1], 'same'));
    const it = client(s.base).pages('listListings', { params: { workspace: WS }, query: { cursor: 'same' } });
    await expect(
      (async () => {
        for await (const _ of it) {
          /* drain */
        }
      })(),
    ).rejects.toThrow(/a cursor for listListings that it had given before/);
  });
});

describe('timeouts', () => {
  it('a server that never answers fails after the timeout (exit 1), retried only as often as allowed', async () => {
    let seen = 0;
    const server = http.createServer(() => void seen++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(
      () =>
        new Promise((r) => {
          server.closeAllConnections();
          server.close(() => r());
        }),
    );
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const started = Date.now();
    const err = await client(base, { timeoutMs: 300, retries: 1, sleep: async () => undefined })
      .request({ method: 'GET', path: '/me' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ClientError);
    expect(exitCodeOf(err)).toBe(EXIT.failure);
    expect(err.message).toMatch(/Timeout/i);
    expect(seen).toBe(2);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('proxy', () => {
  it('tunnels through HTTP_PROXY, and not for hosts in NO_PROXY', async () => {
    const s = await stub(() => ok({}));
    const proxy = await connectProxy();
    closers.push(proxy.close);
    const port = new URL(s.url).port;
    await client(s.base, { env: { HTTP_PROXY: proxy.url } }).request({ method: 'GET', path: '/me' });
    expect(proxy.tunnels).toEqual([`127.0.0.1:${port}`]);
    await client(s.base, { env: { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' } }).request({
      method: 'GET',
      path: '/me',
    });
    expect(proxy.tunnels).toHaveLength(1);
    expect(s.requests).toHaveLength(2);
  });
});
