import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServe } from '../support/cli.js';
import { hostileListing, hostileThread, writeDashboardFixture } from '../support/dashboard.js';
import { CHROMIUM, IN_CI, launchChromium, warnNoBrowser } from '../support/browser.js';
import { DEMO, ROOT, demo, tempDir } from '../support/server.js';

/**
 * The dashboard on a phone and in the dark (issue 37 item 6), in Debian's chromium against the real
 * binary: no page is wider than a 360, 390 or 430 px screen, the side bar folds behind a Menu
 * button, the dark theme passes axe's contrast check, times show in the viewer's zone with UTC on
 * hover, ids have a copy button, a thread links to its contact's other records, and a request-log
 * row opens its detail page. Screenshots go to test/.artifacts/dashboard-responsive/ (ignored by git).
 */
const ARTIFACTS = path.join(ROOT, 'test/.artifacts/dashboard-responsive');
warnNoBrowser("The dashboard's phone and dark-theme test");

/** A returning customer: two threads, a booking and an order under one e-mail address. */
const RETURNING = {
  first: '00000000-0000-4000-8000-0000000c0001',
  second: '00000000-0000-4000-8000-0000000c0002',
  order: '00000000-0000-4000-8000-0000000c0004',
};
function writeReturningCustomer(dir: string): string {
  const contact = { id: '00000000-0000-4000-8000-0000000c00c0', name: 'Rita Returning', email: 'rita@mail.example' };
  const thread = (id: string, subject: string, at: string) => ({
    id,
    workspace_id: demo.ws1,
    subject,
    status: 'open',
    unread: false,
    contact,
    messages: [{ id: id.replace(/.$/, 'f'), channel: 'email', direction: 'inbound', body: subject, created_at: at }],
  });
  const file = path.join(dir, 'returning.json');
  writeFileSync(
    file,
    JSON.stringify({
      version: 1,
      threads: [
        thread(RETURNING.first, 'First visit', '2026-10-01T09:00:00Z'),
        thread(RETURNING.second, 'Coming back', '2026-11-01T09:00:00Z'),
      ],
      bookings: [
        {
          id: '00000000-0000-4000-8000-0000000c0003',
          workspace_id: demo.ws1,
          status: 'confirmed',
          booking_type: { id: '00000000-0000-4000-8000-0000000c00b7', name: 'Tasting for Rita' },
          contact: { name: 'Rita R.', email: 'RITA@mail.example' },
          starts_at: '2026-12-03T14:00:00Z',
          ends_at: '2026-12-03T15:00:00Z',
          timezone: 'Europe/London',
        },
      ],
      orders: [
        {
          id: RETURNING.order,
          workspace_id: demo.ws1,
          offer_id: demo.offerFixedUsd,
          payment_state: 'paid',
          quantity: 1,
          amount_total: 2500,
          currency: 'usd',
          application_fee_amount: 75,
          payment_intent_id: 'pi_local_rita',
          customer_name: 'Rita',
          customer_email: 'rita@mail.example',
          created_at: '2026-11-02T10:00:00Z',
          updated_at: '2026-11-02T10:01:00Z',
        },
      ],
    }),
  );
  return file;
}

const ws = (rest = '') => `/dashboard/workspaces/${demo.ws1}${rest}`;
/** Every kind of page, by a short name for its screenshots. */
const PAGES: Array<[string, string]> = [
  ['workspaces', '/dashboard'],
  ['overview', ws()],
  ['listings', ws('/lists')],
  ['listing', ws(`/lists/${hostileListing}`)],
  ['forms', ws('/forms')],
  ['form', ws(`/forms/${demo.formCatering}`)],
  ['pages', ws('/pages')],
  ['page', ws(`/pages/${demo.pageAcme}`)],
  ['knowledge', ws('/knowledge')],
  ['articles', ws(`/knowledge/${demo.knowledgeList}`)],
  ['article', ws(`/knowledge/${demo.knowledgeList}/articles/${demo.article4Versions}`)],
  ['inbox', ws('/threads')],
  ['thread', ws(`/threads/${demo.newestThread}`)],
  ['hostile-thread', ws(`/threads/${hostileThread}`)],
  ['bookings', ws('/bookings')],
  ['voice', ws('/voice')],
  ['orders', ws('/orders')],
  ['events', ws('/events')],
  ['oauth', ws('/oauth')],
  ['request-log', '/dashboard/requests'],
];

describe('the dashboard on a phone and in the dark', () => {
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
    let axeSource: string;
    const pageErrors: string[] = [];
    const cspViolations: string[] = [];

    beforeAll(async () => {
      dir = tempDir('wcm-responsive-');
      mkdirSync(ARTIFACTS, { recursive: true });
      const fixture = writeDashboardFixture(dir.dir);
      server = await spawnServe(
        [
          '--data',
          path.join(dir.dir, 'store.json'),
          '--seed',
          DEMO,
          '--seed',
          fixture,
          '--seed',
          writeReturningCustomer(dir.dir),
        ],
        { env: { WCM_CONFIG_DIR: dir.dir } },
      );
      origin = new URL(server.url).origin;
      axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
      chromium = await launchChromium();
      browser = chromium.browser;
      page = await browser.newPage();
      // A viewer in New York: the page's times must move from UTC to there.
      await page.emulateTimezone('America/New_York');
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
      });
      await page.setViewport({ width: 1280, height: 900 });
      await page.goto(`${origin}/dashboard/sign-in`);
      await Promise.all([page.waitForNavigation(), page.click('button[value="usr_ada"]')]);
      // A few API requests, so the request log has rows (one of them a 404).
      for (const p of [
        `/workspaces/${demo.ws1}/threads?limit=2`,
        `/workspaces/${demo.ws1}/forms/00000000-0000-4000-8000-00000000f00d`,
      ]) {
        await fetch(`${server.url}${p}`, { headers: { authorization: `Bearer ${demo.owner}` } });
      }
    }, 60_000);

    afterAll(async () => {
      await chromium?.close();
      server?.proc.kill();
      await server?.proc;
      dir?.cleanup();
    });

    /** A phone's screenshot is its first screen (what the issue is about); a wide one is the whole page. */
    const shot = (name: string) =>
      page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: !name.startsWith('390') });
    const scheme = (value: 'light' | 'dark') => page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value }]);

    type Violation = { id: string; impact: string; help: string; targets: string };
    /** axe's violations on the page as it is now (inject it first, once per loaded page): `only` these rules. */
    async function violations(only?: string[]): Promise<Violation[]> {
      return page.evaluate(async (rules) => {
        const run = (
          window as unknown as {
            axe: {
              run(o: unknown): Promise<{
                violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: unknown }> }>;
              }>;
            };
          }
        ).axe.run;
        const r = await run({
          resultTypes: ['violations'],
          ...(rules ? { runOnly: { type: 'rule', values: rules } } : {}),
        });
        return r.violations.map((v) => ({
          id: v.id,
          impact: v.impact,
          help: v.help,
          targets: v.nodes.map((n) => JSON.stringify(n.target)).join(' '),
        }));
      }, only ?? null);
    }
    const described = (v: Violation) => `${v.impact} ${v.id}: ${v.help} (${v.targets})`;
    /** Every rule's serious and critical violations; with `only`, those rules' violations of any impact. */
    async function runAxe(only?: string[]): Promise<string[]> {
      return (await violations(only))
        .filter((v) => only || v.impact === 'serious' || v.impact === 'critical')
        .map(described);
    }
    async function axe(only?: string[]): Promise<string[]> {
      await page.evaluate(axeSource);
      return runAxe(only);
    }

    it.each([360, 390, 430])(
      'at %i px no page is wider than the screen (tables scroll inside their own region)',
      async (width) => {
        await scheme('light');
        await page.setViewport({ width, height: 800, isMobile: true, hasTouch: true });
        const wide: string[] = [];
        for (const [name, url] of PAGES) {
          const res = await page.goto(`${origin}${url}`);
          expect(res?.status(), url).toBe(200);
          const { scroll, inner } = await page.evaluate(() => ({
            scroll: document.documentElement.scrollWidth,
            inner: window.innerWidth,
          }));
          if (scroll > inner) wide.push(`${name}: ${scroll} > ${inner}`);
          if (width === 390 && ['inbox', 'thread', 'request-log', 'bookings', 'overview'].includes(name))
            await shot(`390-light-${name}`);
        }
        expect(wide).toEqual([]);
      },
      120_000,
    );

    it('at 390 px the side bar folds behind a Menu button, so the page starts with its content', async () => {
      await scheme('light');
      await page.setViewport({ width: 390, height: 800, isMobile: true, hasTouch: true });
      await page.goto(`${origin}${ws('/threads')}`);
      const toggle = await page.$('.navtoggle');
      expect(toggle).not.toBeNull();
      expect(await page.$eval('.navtoggle', (b) => b.getAttribute('aria-expanded'))).toBe('false');
      expect(await page.$eval('#side', (n) => getComputedStyle(n).display)).toBe('none');
      // The heading is in the first screen.
      expect(await page.$eval('h1', (h) => h.getBoundingClientRect().top)).toBeLessThan(200);
      await page.click('.navtoggle');
      expect(await page.$eval('.navtoggle', (b) => b.getAttribute('aria-expanded'))).toBe('true');
      expect(await page.$eval('#side', (n) => getComputedStyle(n).display)).not.toBe('none');
      await shot('390-light-menu-open');
      await Promise.all([page.waitForNavigation(), page.click('#side a[href$="/bookings"]')]);
      expect(new URL(page.url()).pathname).toBe(ws('/bookings'));
      // On a wide screen there is no Menu button: the side bar is always there.
      await page.setViewport({ width: 1280, height: 900 });
      expect(await page.$eval('.navtoggle', (b) => getComputedStyle(b).display)).toBe('none');
      expect(await page.$eval('#side', (n) => getComputedStyle(n).display)).not.toBe('none');
    }, 60_000);

    it('prefers-color-scheme: dark renders dark, and every page passes axe colour contrast in dark and light', async () => {
      const problems: string[] = [];
      /** Pages whose dark, wide look is also shot and run through every axe rule (serious and critical). */
      const checkedFully = ['overview', 'inbox', 'thread', 'request-log', 'article', 'orders'];
      const fully: Array<[string, string[]]> = [];
      let inboxBackground = '';
      // Light at one width is enough (the colours do not change with the width). Each page loads
      // once: the theme and the layout are CSS only, so a new width or scheme applies to the loaded
      // page as it would to a fresh load, and axe (half a megabyte of script) is injected once.
      const looks = [
        [390, 'dark'],
        [1280, 'dark'],
        [1280, 'light'],
      ] as const;
      for (const [name, url] of PAGES) {
        await page.setViewport({ width: looks[0][0], height: 900 });
        await scheme(looks[0][1]);
        await page.goto(`${origin}${url}`);
        await page.evaluate(axeSource);
        for (const [width, mode] of looks) {
          await page.setViewport({ width, height: 900 });
          await scheme(mode);
          const wideDark = width === 1280 && mode === 'dark';
          if (wideDark && name === 'inbox')
            inboxBackground = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
          let contrast: Violation[];
          if (wideDark && checkedFully.includes(name)) {
            // One run of every rule: its colour-contrast violations of any impact, and the rest as axe() reports them.
            await shot(`1280-dark-${name}`);
            const all = await violations();
            contrast = all.filter((v) => v.id === 'color-contrast');
            fully.push([name, all.filter((v) => v.impact === 'serious' || v.impact === 'critical').map(described)]);
          } else contrast = await violations(['color-contrast']);
          for (const v of contrast) problems.push(`${width} ${mode} ${name}: ${described(v)}`);
        }
      }
      expect(problems).toEqual([]);
      const [r, g, b] = inboxBackground.match(/\d+/g)!.map(Number);
      expect(r + g + b, `body background ${inboxBackground}`).toBeLessThan(150);
      expect(fully.map(([name]) => name).sort()).toEqual([...checkedFully].sort());
      for (const [name, found] of fully) expect(found, name).toEqual([]);
      await scheme('dark');
      await page.setViewport({ width: 390, height: 800, isMobile: true, hasTouch: true });
      for (const name of ['inbox', 'thread', 'request-log']) {
        await page.goto(`${origin}${PAGES.find(([n]) => n === name)![1]}`);
        await shot(`390-dark-${name}`);
      }
      await scheme('light');
    }, 240_000);

    it('the sign-in page and a not-found page are dark too, and pass axe colour contrast', async () => {
      const context = await browser.createBrowserContext();
      const fresh = await context.newPage();
      try {
        await fresh.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
        await fresh.setViewport({ width: 390, height: 800, isMobile: true });
        await fresh.goto(`${origin}/dashboard/sign-in`);
        expect(await fresh.$$eval('.accounts button', (b) => b.length)).toBeGreaterThan(0);
        const width = await fresh.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
        expect(width).toBe(true);
        await fresh.screenshot({ path: path.join(ARTIFACTS, '390-dark-sign-in.png') });
        await fresh.evaluate(axeSource);
        const contrast = async () =>
          fresh.evaluate(async () => {
            const r = await (
              window as unknown as {
                axe: { run(o: unknown): Promise<{ violations: Array<{ id: string; nodes: unknown[] }> }> };
              }
            ).axe.run({ runOnly: { type: 'rule', values: ['color-contrast'] } });
            return r.violations.map((v) => `${v.id} (${v.nodes.length})`);
          });
        expect(await contrast()).toEqual([]);
        await Promise.all([fresh.waitForNavigation(), fresh.click('button[value="usr_ada"]')]);
        const res = await fresh.goto(
          `${origin}/dashboard/workspaces/${demo.ws1}/threads/00000000-0000-4000-8000-0000000000ff`,
        );
        expect(res?.status()).toBe(404);
        await fresh.evaluate(axeSource);
        expect(await contrast()).toEqual([]);
      } finally {
        await context.close();
      }
    }, 60_000);

    it("times show in the viewer's zone, with the UTC time on hover", async () => {
      await page.setViewport({ width: 1280, height: 900 });
      await page.goto(`${origin}${ws(`/threads/${hostileThread}`)}`);
      // The first message was sent at 2026-11-21T10:00:00Z: 05:00 in New York.
      const t = await page.$eval('.msg time', (el) => ({
        text: el.textContent,
        title: el.getAttribute('title'),
        datetime: el.getAttribute('datetime'),
      }));
      expect(t.datetime).toBe('2026-11-21T10:00:00.000Z');
      expect(t.title).toBe('21 Nov 2026, 10:00 UTC');
      expect(t.text).toMatch(/05:00/);
      expect(t.text).toMatch(/EST|GMT-5/);
    }, 30_000);

    it('an id has a copy button that puts it on the clipboard', async () => {
      const context = browser.defaultBrowserContext();
      await context.overridePermissions(origin, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
      await page.goto(`${origin}${ws(`/threads/${hostileThread}`)}`);
      const button = await page.$('[data-copy] + button.copy');
      expect(button).not.toBeNull();
      await button!.click();
      await page.waitForFunction(() => document.querySelector('[data-copy] + button.copy')?.textContent === 'Copied', {
        timeout: 5_000,
      });
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(hostileThread);
    }, 30_000);

    it("a thread links to its contact's other threads, bookings and orders", async () => {
      await page.setViewport({ width: 1280, height: 900 });
      await page.goto(`${origin}${ws(`/threads/${RETURNING.second}`)}`);
      const related = await page.$eval('#related', (s) => ({
        text: s.textContent ?? '',
        links: [...s.querySelectorAll('a')].map((a) => a.getAttribute('href')!),
      }));
      expect(related.text).toContain('First visit');
      expect(related.text).not.toContain('Coming back');
      expect(related.text).toContain('Tasting for Rita');
      expect(related.links).toEqual([
        ws(`/threads/${RETURNING.first}`),
        ws('/bookings'),
        ws(`/open/${RETURNING.order}`),
      ]);
      await shot('1280-light-thread-related');
      await Promise.all([page.waitForNavigation(), page.click(`#related a[href$="${RETURNING.first}"]`)]);
      expect(await page.$eval('h1', (h) => h.textContent)).toBe('First visit');
      expect(await page.$eval('#related', (s) => s.textContent)).toContain('Coming back');
      await Promise.all([page.waitForNavigation(), page.click(`#related a[href$="${RETURNING.order}"]`)]);
      expect(page.url()).toContain(`/orders#order-${RETURNING.order}`);
      expect(await page.$(`#order-${RETURNING.order}`)).not.toBeNull();
    }, 60_000);

    it('a request-log row opens its detail page', async () => {
      await page.goto(`${origin}/dashboard/requests`);
      const row = await page.$$eval('#request-log tbody tr', (trs) =>
        trs.map((tr) => tr.textContent ?? '').findIndex((t) => t.includes('form_not_found')),
      );
      expect(row).toBeGreaterThanOrEqual(0);
      await Promise.all([page.waitForNavigation(), page.click(`#request-log tbody tr:nth-child(${row + 1}) a`)]);
      expect(new URL(page.url()).pathname).toMatch(/^\/dashboard\/requests\/req_/);
      const facts = await page.$eval('dl.facts', (d) => d.textContent ?? '');
      expect(facts).toContain('/v1/workspaces/');
      expect(facts).toContain('form_not_found');
      expect(facts).toContain('getForm');
      await shot('1280-light-request-detail');
      expect(await axe()).toEqual([]);
    }, 30_000);

    it('ran no script but its own, broke no policy', () => {
      expect(pageErrors).toEqual([]);
      expect(cspViolations).toEqual([]);
    });
  });
});
