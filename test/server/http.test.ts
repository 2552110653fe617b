import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from '../../src/server/app.js';
import { handlers } from '../../src/api/handlers.js';
import { listen } from '../../src/server/http.js';
import { fileEngine, seedStore } from '../support/seed-store.js';
import { Store } from '../../src/store/json/store.js';
import { DEMO, demo, onPort, tempDir } from '../support/server.js';
import { expectProblem } from '../support/problem.js';

const MiB = 1024 * 1024;

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Parses one HTTP/1.1 response with a Content-Length from raw bytes. */
function parse(raw: string, head = false): RawResponse | null {
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1) return null;
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
  }
  const body = raw.slice(end + 4);
  if (!head && Buffer.byteLength(body) < Number(headers['content-length'] ?? 0)) return null;
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

/**
 * Opens a socket, writes `head`, then `bodyChunks` one by one (awaiting each write), and resolves
 * with the first complete response, WITHOUT ever finishing the body unless `finish` is set.
 */
function rawRequest(
  port: number,
  head: string,
  bodyChunks: Buffer[],
  opts: { finish?: Buffer } = {},
): Promise<RawResponse & { sent: number }> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let raw = '';
    let sent = 0;
    let done = false;
    const timer = setTimeout(() => reject(new Error(`no response; got: ${raw.slice(0, 300)}`)), 15_000);
    sock.on('data', (d) => {
      raw += d.toString('utf8');
      const r = parse(raw, head.startsWith('HEAD '));
      if (r && !done) {
        done = true;
        clearTimeout(timer);
        sock.destroy();
        resolve({ ...r, sent });
      }
    });
    sock.on('error', (err) => {
      if (!done) reject(err);
    });
    sock.on('connect', async () => {
      sock.write(head);
      for (const c of bodyChunks) {
        if (done) return;
        await new Promise<void>((r) => sock.write(c, () => r()));
        sent += c.length;
      }
      if (opts.finish && !done) sock.write(opts.finish);
    });
  });
}

describe('through a real socket', () => {
  let server: Awaited<ReturnType<typeof onPort>>;
  beforeAll(async () => {
    server = await onPort();
  });
  afterAll(async () => {
    await server.close();
  });
  const url = `/v1/workspaces/${demo.ws1}/lists`;
  const head = (extra: string) =>
    `POST ${url} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${demo.owner}\r\nContent-Type: application/json\r\nX-Request-Id: big-body-1\r\n${extra}\r\n`;

  it('413 for a declared Content-Length over 1 MiB, answered before the body is sent', async () => {
    const res = await rawRequest(server.port, head(`Content-Length: ${2 * MiB}\r\n`), [Buffer.from('{"title":')]);
    expectProblem(res, 413, 'payload_too_large', url);
    expect(res.headers['x-request-id']).toBe('big-body-1');
    expect(res.sent).toBeLessThan(100);
  });

  it('413 for a chunked body without Content-Length, as soon as it passes 1 MiB (the body never ends)', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const frame = (b: Buffer) => Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
    // 40 chunks of 64 KiB = 2.5 MiB offered; the response must come before the terminating chunk,
    // which is never sent: the limit is enforced while reading.
    const res = await rawRequest(
      server.port,
      head('Transfer-Encoding: chunked\r\n'),
      Array.from({ length: 40 }, () => frame(chunk)),
    );
    expectProblem(res, 413, 'payload_too_large', url);
  });

  it('a body of exactly 1 MiB is read and validated (422, not 413)', async () => {
    const prefix = '{"template_slug":"faq","title":"';
    const suffix = '"}';
    const body = Buffer.from(prefix + 'x'.repeat(MiB - prefix.length - suffix.length) + suffix);
    expect(body.length).toBe(MiB);
    const res = await rawRequest(server.port, head(`Content-Length: ${body.length}\r\n`), [body]);
    const p = expectProblem(res, 422, 'validation_failed', url);
    expect(Object.keys(p.errors)).toEqual(['title']);
  });

  it('fetch sending 2 MiB gets the 413 response, not a connection reset', async () => {
    const res = await fetch(`${server.url}/workspaces/${demo.ws1}/lists`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demo.owner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'x'.repeat(2 * MiB), template_slug: 'faq' }),
    });
    const body = await res.text();
    expectProblem({ status: res.status, headers: Object.fromEntries(res.headers), body }, 413, 'payload_too_large');
  });

  it('the server keeps serving after oversized bodies', async () => {
    const res = await fetch(`${server.url}/workspaces/${demo.ws1}/lists`, {
      headers: { authorization: `Bearer ${demo.owner}` },
    });
    expect(res.status).toBe(200);
  });

  it.each([
    ['an absolute-form target with a bad port', 'GET http://x:99999/v1/me HTTP/1.1'],
    ['an absolute-form target with a bad host', 'GET http://[/v1 HTTP/1.1'],
  ])('%s is 404 route_not_found, and the server lives on', async (_n, line) => {
    const res = await rawRequest(server.port, `${line}\r\nHost: localhost\r\nX-Request-Id: odd-target\r\n\r\n`, []);
    expectProblem(res, 404, 'route_not_found');
    expect(res.headers['x-request-id']).toBe('odd-target');
    expect((await fetch(`${server.url}/me`, { headers: { authorization: `Bearer ${demo.owner}` } })).status).toBe(200);
  });

  it('HEAD /healthz has headers and no body', async () => {
    const res = await rawRequest(
      server.port,
      'HEAD /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
      [],
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe('15');
    expect(res.body).toBe('');
  });
});

describe('HEAD on API routes', () => {
  let server: Awaited<ReturnType<typeof onPort>>;
  beforeAll(async () => {
    server = await onPort();
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers like GET without the body: same status and Content-Length', async () => {
    const get = await fetch(`${server.url}/setup/listing-templates`, {
      headers: { authorization: `Bearer ${demo.owner}` },
    });
    const getBody = await get.text();
    const res = await rawRequest(
      server.port,
      `HEAD /v1/setup/listing-templates HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${demo.owner}\r\nConnection: close\r\n\r\n`,
      [],
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(getBody)));
    expect(res.body).toBe('');
  });
});

describe('graceful close', () => {
  it('lets an in-flight request finish, refuses new connections, then resolves', async () => {
    const { dir, cleanup } = tempDir();
    const store = await Store.open(path.join(dir, 'store.json'));
    await seedStore(store, [DEMO]);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const inHandler = new Promise<void>((r) => (started = r));
    const app = new App({
      db: fileEngine(store),
      handlers: {
        ...handlers,
        listListings: async (ctx) => {
          started();
          await gate;
          return handlers.listListings(ctx);
        },
      },
    });
    const running = await listen(app, { port: 0 });
    const pending = fetch(`${running.url}/workspaces/${demo.ws1}/lists`, {
      headers: { authorization: `Bearer ${demo.owner}` },
    });
    await inHandler;
    let closed = false;
    const closing = running.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(false);
    await expect(fetch(`${running.url}/me`, { headers: { authorization: `Bearer ${demo.owner}` } })).rejects.toThrow();
    release();
    const res = await pending;
    expect(res.status).toBe(200);
    expect((await res.json()).data).toHaveLength(5);
    await closing;
    expect(closed).toBe(true);
    await store.close();
    cleanup();
  });
});
