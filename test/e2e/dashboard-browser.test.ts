import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServe, wcm } from '../support/cli.js';
import { HOSTILE, hostileThread, writeDashboardFixture } from '../support/dashboard.js';
import { CHROMIUM, IN_CI, launchChromium, warnNoBrowser } from '../support/browser.js';
import { DEMO, ROOT, demo, tempDir } from '../support/server.js';

/**
 * The dashboard in a real browser (Debian's chromium driven by puppeteer-core), against the real
 * binary: sign in, follow a listing's dashboard_url from `wcm lists ls --json`, read a thread whose
 * message is script, page the inbox, and check accessibility with axe-core. Screenshots go to
 * test/.artifacts/dashboard/ (ignored by git).
 */
const ARTIFACTS = path.join(ROOT, 'test/.artifacts/dashboard');
warnNoBrowser("The dashboard's browser test");

describe('the dashboard in a real browser', () => {
  it.runIf(!CHROMIUM && IN_CI)('has a browser to run in (CI never skips this)', () => {
    expect(CHROMIUM, 'chromium is required in CI: apt-get install -y chromium').toBeDefined();
  });

  describe.runIf(!!CHROMIUM)('with chromium', () => {
    let browser: Browser;
    let page: Page;
    let server: Awaited<ReturnType<typeof spawnServe>>;
    let origin: string;
    let dir: ReturnType<typeof tempDir>;
    let chromium: Awaited<ReturnType<typeof launchChromium>>;
    const dialogs: string[] = [];
    const outside: string[] = [];
    const pageErrors: string[] = [];
    const cspViolations: string[] = [];
    let axeSource: string;

    beforeAll(async () => {
      dir = tempDir('wcm-browser-');
      mkdirSync(ARTIFACTS, { recursive: true });
      const fixture = writeDashboardFixture(dir.dir);
      server = await spawnServe(['--data', path.join(dir.dir, 'store.json'), '--seed', DEMO, '--seed', fixture], {
        env: { WCM_CONFIG_DIR: dir.dir },
      });
      origin = new URL(server.url).origin;
      axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
      chromium = await launchChromium();
      browser = chromium.browser;
      page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 900 });
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
      });
      page.on('request', (r) => {
        if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) outside.push(r.url());
      });
    }, 60_000);

    afterAll(async () => {
      await chromium?.close();
      server?.proc.kill();
      await server?.proc;
      dir?.cleanup();
    });

    const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

    /** axe-core in the page (evaluated over the DevTools protocol, so the page's CSP still forbids scripts of its own). */
    async function axeSerious(): Promise<string[]> {
      await page.evaluate(axeSource);
      const result = await page.evaluate(async () => {
        const r = await (
          window as unknown as {
            axe: {
              run(
                o: unknown,
              ): Promise<{ violations: Array<{ id: string; impact: string; help: string; nodes: unknown[] }> }>;
            };
          }
        ).axe.run({ resultTypes: ['violations'] });
        return r.violations.map((v) => ({
          id: v.id,
          impact: v.impact,
          help: v.help,
          count: v.nodes.length,
          targets: v.nodes.map((n) => JSON.stringify((n as { target: unknown }).target)).join(' '),
        }));
      });
      return result
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.count}: ${v.targets})`);
    }

    it("signs in with the account chooser and lands on a listing's dashboard_url from `wcm lists ls --json`", async () => {
      const ls = await wcm(['lists', 'ls', '--json'], {
        env: { WCM_BASE_URL: server.url, WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws1, WCM_CONFIG_DIR: dir.dir },
      });
      expect(ls.exitCode, ls.stderr).toBe(0);
      const listings = JSON.parse(ls.stdout) as Array<{ id: string; title: string; dashboard_url: string }>;
      const listing = listings.find((l) => !l.title.includes('<'))!;
      expect(listing.dashboard_url.startsWith(`${origin}/dashboard/`)).toBe(true);

      await page.goto(listing.dashboard_url);
      expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
      expect(await page.$$eval('.accounts button', (b) => b.length)).toBe(4);
      await shot('01-sign-in');
      expect(await axeSerious()).toEqual([]);

      await Promise.all([page.waitForNavigation(), page.click('button[value="usr_ada"]')]);
      expect(page.url()).toBe(listing.dashboard_url);
      expect(await page.$eval('h1', (h) => h.textContent)).toBe(listing.title);
      const cookies = await browser.cookies();
      const session = cookies.find((c) => c.name === 'wcm_session')!;
      expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/dashboard' });
      expect(session.value).not.toContain('wcm_pat_');
      await shot('02-listing');
      expect(await axeSerious()).toEqual([]);
    }, 60_000);

    it('shows a message that is script as text, and nothing runs', async () => {
      await page.goto(`${origin}/dashboard/workspaces/${demo.ws1}/threads/${hostileThread}`);
      const bubbles = await page.$$eval('.msg .bubble', (els) => els.map((e) => e.textContent));
      expect(bubbles[0]).toBe(HOSTILE.body);
      expect(await page.$eval('h1', (h) => h.textContent)).toBe(HOSTILE.subject);
      expect(await page.evaluate(() => (window as unknown as { __wcmPwned?: unknown }).__wcmPwned)).toBeUndefined();
      expect(await page.$$eval('main img, main script, main svg', (els) => els.length)).toBe(0);
      expect(dialogs).toEqual([]);
      await shot('03-thread-with-script');
      expect(await axeSerious()).toEqual([]);
    }, 60_000);

    it("follows the inbox's next link: 50 rows, then the rest", async () => {
      await page.goto(`${origin}/dashboard/workspaces/${demo.ws1}/threads`);
      expect(await page.$$eval('tbody tr', (r) => r.length)).toBe(50);
      const firstIds = await page.$$eval('tbody tr a', (as) => as.map((a) => a.getAttribute('href')));
      await shot('04-inbox');
      expect(await axeSerious()).toEqual([]);
      await Promise.all([page.waitForNavigation(), page.click('a[rel="next"]')]);
      expect(page.url()).toContain('cursor=');
      const rest = await page.$$eval('tbody tr a', (as) => as.map((a) => a.getAttribute('href')));
      expect(rest.length).toBe(35);
      expect(rest.filter((h) => firstIds.includes(h))).toEqual([]);
      expect(await page.$('a[rel="next"]')).toBeNull();
      await shot('05-inbox-page-2');
    }, 60_000);

    it.each([
      ['06-overview', ''],
      ['07-bookings', '/bookings'],
      ['08-article', `/knowledge/${demo.knowledgeList}/articles/${demo.article4Versions}`],
      ['09-page', `/pages/${demo.pageAcme}`],
      ['10-voice', '/voice'],
      ['11-orders', '/orders'],
    ])(
      '%s has no serious accessibility problem',
      async (name, rest) => {
        const res = await page.goto(`${origin}/dashboard/workspaces/${demo.ws1}${rest}`);
        expect(res?.status()).toBe(200);
        await shot(name);
        expect(await axeSerious()).toEqual([]);
      },
      60_000,
    );

    it('the request log page shows new requests live (its one script from /assets, SSE), as text', async () => {
      const res = await page.goto(`${origin}/dashboard/requests`);
      expect(res?.status()).toBe(200);
      expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
      // A request whose path holds markup: it must arrive as text.
      await fetch(`${server.url}/workspaces/${demo.ws1}/forms/00000000-0000-4000-8000-00000000f00d`, {
        headers: { authorization: `Bearer ${demo.owner}` },
      });
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll('#request-log tbody tr')].some((tr) =>
            tr.textContent?.includes('form_not_found'),
          ),
        { timeout: 10_000 },
      );
      const first = await page.$eval('#request-log tbody tr', (tr) => tr.textContent ?? '');
      expect(first).toContain('getForm');
      expect(first).toContain('404');
      await shot('12-request-log');
      expect(await axeSerious()).toEqual([]);
    }, 30_000);

    it('asked for nothing outside the server, ran no script, broke no policy', () => {
      expect(outside).toEqual([]);
      expect(pageErrors).toEqual([]);
      expect(cspViolations).toEqual([]);
      expect(dialogs).toEqual([]);
    });
  });
});
