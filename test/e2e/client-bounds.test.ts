// The client's bounds against a hostile server (docs/security.md, "The CLI"): a body that never
// ends is cut off at 64 MiB with a clear error, and cursors that go round in a circle (A, B, A, B…)
// stop the paging with an error instead of looping for ever. The built binary.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wcm } from '../support/cli.js';
import { tempDir } from '../support/server.js';

const WS = '7f1c0f3e-1d2a-4c5b-9e8f-0a1b2c3d4e5f';
const ITEM = { id: '0b7e2c1a-3d4f-4a5b-8c9d-0e1f2a3b4c5d', title: 'x', updated_at: '2026-01-01T00:00:00Z' };

let server: http.Server;
let base: string;
let dir: ReturnType<typeof tempDir>;
const pages: string[] = [];
let streamed = 0;
beforeAll(async () => {
  dir = tempDir('wcm-client-bounds-');
  const chunk = Buffer.alloc(64 * 1024, 'a');
  server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (
      url.pathname.endsWith('/endless') ||
      url.pathname === '/.well-known/oauth-protected-resource' ||
      url.pathname.startsWith('/_emulator/')
    ) {
      // Sends as fast as the client reads, until it goes away.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":"');
      const pump = () => {
        while (!res.destroyed) {
          streamed += chunk.length;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
      };
      res.on('close', () => res.removeAllListeners('drain'));
      return pump();
    }
    if (url.pathname === '/v1/me') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const abilities = ['content:read', 'engagements:read', 'workspaces:read'];
      const me = { id: ITEM.id, name: 'a', email: 'a@example.com' };
      return res.end(
        JSON.stringify({
          data: {
            user: me,
            token: { name: 't', kind: 'personal', abilities, expires_at: null },
            workspaces: [{ id: WS, name: 'w', role: 'owner' }],
          },
          meta: { request_id: 'r' },
        }),
      );
    }
    // Every list: one item, and a cursor that alternates A, B, A, B…
    pages.push(url.searchParams.get('cursor') ?? '');
    const next = url.searchParams.get('cursor') === 'A' ? 'B' : 'A';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: [ITEM], meta: { request_id: 'r', next_cursor: next } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  dir.cleanup();
});

const env = () => ({
  WCM_CONFIG_DIR: dir.dir,
  WCM_BASE_URL: base,
  WCM_TOKEN: 'wcm_pat_bounds',
  WCM_WORKSPACE: WS,
  WCM_KEYCHAIN: 'off',
});

describe('a server that streams without end', () => {
  it('wcm api: cut off at 64 MiB with a clear error, not retried, not out of memory', async () => {
    streamed = 0;
    const started = Date.now();
    const r = await wcm(['api', '/endless'], { env: env(), timeout: 60_000 });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      `The response from ${new URL(base).origin} was larger than 64 MiB; wcm stopped reading it.`,
    );
    // One attempt: the server sent about 64 MiB (plus what was in flight), never several times that.
    expect(streamed).toBeGreaterThan(60 * 1024 * 1024);
    expect(streamed).toBeLessThan(80 * 1024 * 1024);
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);
});

describe('the requests made with fetch: the control plane and OAuth discovery', () => {
  it('local snapshot ls and auth login --web are cut off at 64 MiB too', async () => {
    const snap = await wcm(['local', 'snapshot', 'ls'], {
      env: { ...env(), WCM_ADMIN_TOKEN: 'wcm_admin_bounds000000000000000000000000' },
      timeout: 60_000,
    });
    expect(snap.exitCode).toBe(1);
    expect(snap.stderr).toContain(
      `The answer from ${new URL(base).origin} was cut off: the response body passed 67108864 bytes.`,
    );
    const login = await wcm(['auth', 'login', '--web', '--base-url', base, '--timeout', '5'], {
      env: { ...env(), BROWSER: 'none' },
      timeout: 60_000,
    });
    expect(login.exitCode).toBe(1);
    expect(login.stderr).toContain('/.well-known/oauth-protected-resource was cut off');
  }, 120_000);
});

describe('cursors that go round in a circle', () => {
  it('lists ls --all stops with an error after A, B', async () => {
    pages.length = 0;
    const r = await wcm(['lists', 'ls', '--all', '--json'], { env: env(), timeout: 20_000 });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/cursor for listListings that it had given before \(after 2 pages\); the pages go round/);
    expect(pages).toEqual(['', 'A', 'B']);
  });

  it('api --paginate stops with an error the same way', async () => {
    pages.length = 0;
    const r = await wcm(['api', '--paginate', '/workspaces/{workspace}/lists'], { env: env(), timeout: 20_000 });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/that it had given before/);
    expect(pages).toEqual(['', 'A', 'B']);
  });

  it('wcm pull stops with the same error, keeping its partial copy', async () => {
    pages.length = 0;
    const r = await wcm(['pull'], { env: env(), cwd: dir.dir, timeout: 30_000 });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/cursor for listListings that it had given before \(after 2 pages\)/);
    expect(r.stderr).toContain('--resume');
  });
});
