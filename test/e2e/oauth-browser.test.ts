// The OAuth consent in a real browser (Debian's chromium via puppeteer-core) against the real
// `wcm serve` binary: sign in with the account chooser, tick a workspace, authorize, land on a
// loopback redirect; then `wcm auth login --web` with the browser following the printed URL.
// Screenshots go to test/.artifacts/oauth/ (ignored by git).
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { execa } from 'execa';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, IN_CI, launchChromium, warnNoBrowser } from '../support/browser.js';
import { BIN, spawnServe, wcm } from '../support/cli.js';
import { pkce, tokenRequest } from '../support/oauth.js';
import { DEMO, ROOT, demo, tempDir } from '../support/server.js';

const ARTIFACTS = path.join(ROOT, 'test/.artifacts/oauth');
warnNoBrowser("The OAuth consent's browser test");

describe('OAuth consent in a real browser', () => {
  it.runIf(!CHROMIUM && IN_CI)('has a browser to run in (CI never skips this)', () => {
    expect(CHROMIUM, 'chromium is required in CI: apt-get install -y chromium').toBeDefined();
  });

  describe.runIf(!!CHROMIUM)('with chromium', () => {
    let chromium: Awaited<ReturnType<typeof launchChromium>>;
    let server: Awaited<ReturnType<typeof spawnServe>>;
    let origin: string;
    let dir: ReturnType<typeof tempDir>;
    const cspViolations: string[] = [];

    beforeAll(async () => {
      dir = tempDir('wcm-oauth-browser-');
      mkdirSync(ARTIFACTS, { recursive: true });
      server = await spawnServe(['--data', path.join(dir.dir, 'store.json'), '--seed', DEMO], {
        env: { WCM_CONFIG_DIR: dir.dir },
      });
      origin = new URL(server.url).origin;
      chromium = await launchChromium();
    }, 60_000);
    afterAll(async () => {
      await chromium?.close();
      server?.proc.kill();
      await server?.proc;
      dir?.cleanup();
    });

    async function newPage(): Promise<Page> {
      const page = await chromium.browser.newPage();
      await page.setViewport({ width: 1100, height: 900 });
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
      });
      return page;
    }

    /** On the sign-in page: choose the account with this e-mail. */
    async function chooseAccount(page: Page, email: string) {
      const buttons = await page.$$('ul.accounts button');
      for (const b of buttons) {
        if ((await b.evaluate((el) => el.textContent ?? '')).includes(email)) {
          await Promise.all([page.waitForNavigation(), b.click()]);
          return;
        }
      }
      throw new Error(`no account ${email} on the sign-in page`);
    }

    it('sign in, tick a workspace, authorize: the browser lands on the loopback redirect with code, state and iss', async () => {
      // The application's loopback listener.
      let landed = '';
      const app = http.createServer((req, res) => {
        if (req.url!.startsWith('/callback')) landed = `http://127.0.0.1${req.url}`;
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<!doctype html><title>app</title><p>Signed in to the app.</p>');
      });
      await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
      const port = (app.address() as AddressInfo).port;
      try {
        const { challenge } = pkce();
        const url = new URL('/oauth/authorize', origin);
        url.search = new URLSearchParams({
          response_type: 'code',
          client_id: demo.oauthAppAcme,
          redirect_uri: `http://127.0.0.1:${port}/callback`,
          scope: 'content:read engagements:read',
          state: 'browser-state',
          code_challenge: challenge,
          code_challenge_method: 'S256',
        }).toString();
        const page = await newPage();
        await page.goto(url.toString());
        expect(page.url()).toContain('/oauth/sign-in');
        await page.screenshot({ path: path.join(ARTIFACTS, 'sign-in.png') });
        await chooseAccount(page, 'ada@acme-coffee.example');
        expect(await page.title()).toContain('Authorize Acme helpdesk agent');
        await page.click(`input[name="workspace_${demo.ws1}"]`);
        await page.screenshot({ path: path.join(ARTIFACTS, 'consent.png'), fullPage: true });
        await Promise.all([page.waitForNavigation(), page.click('button[value="approve"]')]);
        expect(await page.content()).toContain('Signed in to the app.');
        const back = new URL(landed);
        expect(back.pathname).toBe('/callback');
        expect(back.searchParams.get('state')).toBe('browser-state');
        expect(back.searchParams.get('iss')).toBe(origin);
        expect(back.searchParams.get('code')).toMatch(/^wcm_code_/);
        expect(cspViolations).toEqual([]);
        await page.close();
      } finally {
        await new Promise((r) => app.close(r));
      }
    });

    it('consent: abilities come ticked; Authorize waits for a workspace; an unticked ability is not in the token', async () => {
      let landed = '';
      const app = http.createServer((req, res) => {
        if (req.url!.startsWith('/callback')) landed = `http://127.0.0.1${req.url}`;
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<!doctype html><title>app</title><p>Signed in to the app.</p>');
      });
      await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
      const redirect = `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback`;
      const context = await chromium.browser.createBrowserContext();
      try {
        const { verifier, challenge } = pkce();
        const url = new URL('/oauth/authorize', origin);
        url.search = new URLSearchParams({
          response_type: 'code',
          client_id: demo.oauthAppAcme,
          redirect_uri: redirect,
          scope: 'content:read engagements:read',
          state: 'untick',
          code_challenge: challenge,
          code_challenge_method: 'S256',
        }).toString();
        const page = await context.newPage();
        page.on('console', (m) => {
          if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
        });
        await page.goto(url.toString());
        await chooseAccount(page, 'ada@acme-coffee.example');
        const checked = (name: string) => page.$eval(`input[name="${name}"]`, (el) => (el as HTMLInputElement).checked);
        const disabled = () => page.$eval('button[value="approve"]', (el) => (el as HTMLButtonElement).disabled);
        expect(await checked('ability_content:read')).toBe(true);
        expect(await checked('ability_engagements:read')).toBe(true);
        // Ada has two workspaces, none pre-ticked: Authorize is disabled until one is.
        expect(await disabled()).toBe(true);
        await page.click(`input[name="workspace_${demo.ws1}"]`);
        expect(await disabled()).toBe(false);
        await page.click('input[name="ability_engagements:read"]');
        expect(await checked('ability_engagements:read')).toBe(false);
        await page.click('input[name="ability_content:read"]');
        expect(await disabled()).toBe(true); // no ability left
        await page.click('input[name="ability_content:read"]');
        expect(await disabled()).toBe(false);
        await page.screenshot({ path: path.join(ARTIFACTS, 'consent-unticked.png'), fullPage: true });
        await Promise.all([page.waitForNavigation(), page.click('button[value="approve"]')]);
        const back = new URL(landed);
        expect(back.searchParams.get('state')).toBe('untick');
        const t = await tokenRequest(origin, {
          grant_type: 'authorization_code',
          code: back.searchParams.get('code')!,
          redirect_uri: redirect,
          client_id: demo.oauthAppAcme,
          code_verifier: verifier,
        });
        expect(t.status).toBe(200);
        expect(t.json.scope).toBe('content:read');
        const call = (p: string) =>
          fetch(`${origin}/v1/workspaces/${demo.ws1}/${p}`, {
            headers: { authorization: `Bearer ${t.json.access_token}` },
          });
        expect((await call('lists')).status).toBe(200);
        expect((await call('threads')).status).toBe(403);
        expect(cspViolations).toEqual([]);
      } finally {
        await context.close();
        await new Promise((r) => app.close(r));
      }
    });

    it('`wcm auth login --web`: the browser follows the printed URL; the CLI saves an OAuth token that works', async () => {
      const env = {
        WCM_CONFIG_DIR: path.join(dir.dir, 'cli'),
        BROWSER: 'none',
        WCM_KEYCHAIN: 'off',
        NO_COLOR: '1',
        CI: 'true',
      };
      const login = execa('node', [BIN, 'auth', 'login', '--web', '--base-url', server.url, '--timeout', '60'], {
        env,
        reject: false,
      });
      const printed = await new Promise<string>((resolve, reject) => {
        let err = '';
        void login.then((r) => reject(new Error(`login ended before printing a URL: ${r.stderr}`)));
        login.stderr!.on('data', (d: Buffer) => {
          err += d.toString();
          const m = /(http:\/\/\S+\/oauth\/authorize\?\S+)/.exec(err);
          if (m) resolve(m[1]);
        });
      });
      const page = await newPage();
      await page.goto(printed);
      // The session from the first test is for this browser already: straight to consent.
      if (page.url().includes('/oauth/sign-in')) await chooseAccount(page, 'ada@acme-coffee.example');
      expect(await page.title()).toContain('Authorize wcm (command line)');
      await page.click(`input[name="workspace_${demo.ws1}"]`);
      await Promise.all([page.waitForNavigation(), page.click('button[value="approve"]')]);
      expect(await page.content()).toContain('You can close this tab');
      await page.screenshot({ path: path.join(ARTIFACTS, 'cli-done.png') });
      const r = await login;
      expect(r.exitCode, r.stderr).toBe(0);
      const me = await wcm(['auth', 'status', '--json'], { env });
      const status = JSON.parse(me.stdout);
      expect(status.token.kind).toBe('oauth');
      expect(status.workspaces.map((w: { id: string }) => w.id)).toEqual([demo.ws1]);
      expect(cspViolations).toEqual([]);
      await page.close();
    });

    it('`wcm auth login --web` exits within seconds of the login, whatever the browser keeps open (keep-alive, a preconnect, a favicon)', async () => {
      const env = {
        WCM_CONFIG_DIR: path.join(dir.dir, 'cli-exit'),
        BROWSER: 'none',
        WCM_KEYCHAIN: 'off',
        NO_COLOR: '1',
        CI: 'true',
      };
      const login = execa('node', [BIN, 'auth', 'login', '--web', '--base-url', server.url, '--timeout', '120'], {
        env,
        reject: false,
      });
      const printed = await new Promise<string>((resolve, reject) => {
        let err = '';
        void login.then((r) => reject(new Error(`login ended before printing a URL: ${r.stderr}`)));
        login.stderr!.on('data', (d: Buffer) => {
          err += d.toString();
          const m = /(http:\/\/\S+\/oauth\/authorize\?\S+)/.exec(err);
          if (m) resolve(m[1]);
        });
      });
      const loopback = new URL(new URL(printed).searchParams.get('redirect_uri')!);
      // A fresh browser context (no session yet): sign-in, then consent, as a first login goes.
      const context = await chromium.browser.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport({ width: 1100, height: 900 });
      // What a browser holds besides the redirect: an idle preconnect and a kept-alive connection.
      const preconnect = net.connect(Number(loopback.port), '127.0.0.1');
      const keepAlive = new http.Agent({ keepAlive: true });
      const favicon = await new Promise<number>((resolve) => {
        http
          .get({ host: '127.0.0.1', port: loopback.port, path: '/favicon.ico', agent: keepAlive }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
          .on('error', () => resolve(-1));
      });
      expect(favicon).toBe(404);
      try {
        await page.goto(printed);
        await chooseAccount(page, 'ada@acme-coffee.example');
        await page.click(`input[name="workspace_${demo.ws1}"]`);
        await Promise.all([page.waitForNavigation(), page.click('button[value="approve"]')]);
        const landed = Date.now();
        expect(await page.content()).toContain('You can close this tab');
        const exited = await Promise.race([
          login.then((r) => r),
          new Promise<null>((r) => setTimeout(() => r(null), 10_000)),
        ]);
        expect(exited, 'auth login --web was still running 10 s after the browser landed').not.toBeNull();
        expect(exited!.exitCode, exited!.stderr).toBe(0);
        expect(exited!.stdout).toContain('Logged in to');
        expect(Date.now() - landed).toBeLessThan(5_000);
        await page.screenshot({ path: path.join(ARTIFACTS, 'cli-exit-done.png') });
      } finally {
        login.kill();
        preconnect.destroy();
        keepAlive.destroy();
        await context.close();
      }
    }, 60_000);
  });
});
