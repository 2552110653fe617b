// docs/security.md#host-origin-and-cors in a real browser (Debian's chromium via puppeteer-core) against the real server:
// a DNS-rebinding page (attacker.example resolved to 127.0.0.1 by the browser) is refused at its
// first request, a page with an opaque origin cannot write, and a page on a loopback origin (the
// MCP Inspector's case) can call /mcp cross-origin.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, IN_CI, launchChromium, warnNoBrowser } from '../support/browser.js';
import { demo, onPort } from '../support/server.js';

warnNoBrowser('The Host/Origin browser test');

describe('Host and Origin rules in a real browser', () => {
  it.runIf(!CHROMIUM && IN_CI)('has a browser to run in (CI never skips this)', () => {
    expect(CHROMIUM, 'chromium is required in CI: apt-get install -y chromium').toBeDefined();
  });

  describe.runIf(!!CHROMIUM)('with chromium', () => {
    let server: Awaited<ReturnType<typeof onPort>>;
    let chromium: Awaited<ReturnType<typeof launchChromium>>;
    let browser: Browser;
    /** A page server on another loopback port: a different origin the rule allows (the Inspector's case). */
    let pages: http.Server;
    let pagesOrigin: string;

    beforeAll(async () => {
      server = await onPort();
      // The browser resolves attacker.example to 127.0.0.1, as a rebound DNS answer would.
      chromium = await launchChromium(['--host-resolver-rules=MAP attacker.example 127.0.0.1']);
      browser = chromium.browser;
      // `/sandboxed`: a frame with an opaque origin (its requests say `Origin: null`).
      pages = http.createServer((req, res) =>
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            req.url === '/sandboxed'
              ? '<!doctype html><title>page</title><iframe sandbox="allow-scripts" srcdoc="<title>frame</title>"></iframe>'
              : '<!doctype html><title>page</title>',
          ),
      );
      await new Promise<void>((r) => pages.listen(0, '127.0.0.1', r));
      pagesOrigin = `http://localhost:${(pages.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await chromium?.close();
      await new Promise((r) => pages?.close(r));
      await server?.close();
    });

    const listings = () => [...server.store.values('listings')].length;

    it('a rebound name gets 421 for the dashboard, the account chooser and OAuth: no chooser is ever shown', async () => {
      const page = await browser.newPage();
      try {
        for (const path of [
          '/dashboard',
          '/dashboard/sign-in',
          '/oauth/sign-in',
          '/.well-known/oauth-authorization-server',
        ]) {
          const res = await page.goto(`http://attacker.example:${server.port}${path}`);
          expect([path, res!.status()]).toEqual([path, 421]);
          const body = await page.evaluate(() => document.body.innerText);
          expect(body).toContain('host_not_allowed');
          expect(body).not.toContain('Ada');
        }
        // The same browser on the real address gets the chooser (a legitimate local user).
        const ok = await page.goto(`http://127.0.0.1:${server.port}/dashboard/sign-in`);
        expect(ok!.status()).toBe(200);
        expect(await page.content()).toContain('Ada');
      } finally {
        await page.close();
      }
    });

    it('a sandboxed frame (Origin: null) posting to the API is refused by the server: 403 origin_not_allowed, nothing created', async () => {
      const page = await browser.newPage();
      try {
        await page.goto(`${pagesOrigin}/sandboxed`);
        const frame = page.frames().find((f) => f !== page.mainFrame())!;
        const before = listings();
        const url = `http://127.0.0.1:${server.port}/v1/workspaces/${demo.ws1}/lists`;
        // A simple (no-cors) POST goes out without a preflight: the server itself must refuse it.
        await frame.evaluate(async (u: string) => {
          await fetch(u, {
            method: 'POST',
            mode: 'no-cors',
            headers: { 'content-type': 'text/plain' },
            body: '{"title":"from null","template_slug":"faq"}',
          }).catch(() => null);
        }, url);
        const logged = await (
          await fetch(`${server.origin}/_emulator/requests?limit=5`, {
            headers: { authorization: `Bearer ${server.adminToken}` },
          })
        ).json();
        expect(
          logged.data.some(
            (r: { status: number; problem: string | null }) => r.status === 403 && r.problem === 'origin_not_allowed',
          ),
        ).toBe(true);
        expect(listings()).toBe(before);
      } finally {
        await page.close();
      }
    });

    it("a page on a loopback origin (the Inspector's web UI) calls /mcp cross-origin: preflight, then the answer with CORS", async () => {
      const page = await browser.newPage();
      try {
        await page.goto(pagesOrigin);
        const answer = await page.evaluate(
          async (url: string, token: string) => {
            const r = await fetch(url, {
              method: 'POST',
              headers: {
                authorization: `Bearer ${token}`,
                'content-type': 'application/json',
                accept: 'application/json, text/event-stream',
                'mcp-protocol-version': '2025-06-18',
              },
              body: JSON.stringify({
                jsonrpc: '2.0',
                id: 1,
                method: 'tools/call',
                params: { name: 'getMe', arguments: {} },
              }),
            });
            return { status: r.status, body: await r.json() };
          },
          `http://127.0.0.1:${server.port}/mcp`,
          demo.owner,
        );
        expect(answer.status).toBe(200);
        expect(answer.body.result.structuredContent.data.user.id).toBe('usr_ada');
        // A browser-based client can read the OAuth challenge of a 401 (exposed header).
        const challenge = await page.evaluate(async (url: string) => {
          const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
          return r.headers.get('www-authenticate');
        }, `http://127.0.0.1:${server.port}/mcp`);
        expect(challenge).toContain('resource_metadata=');
      } finally {
        await page.close();
      }
    });
  });
});
