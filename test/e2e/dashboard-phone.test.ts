import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServe } from '../support/cli.js';
import { CHROMIUM, IN_CI, launchChromium, warnNoBrowser } from '../support/browser.js';
import { DEMO, demo, tempDir } from '../support/server.js';

/**
 * The dashboard of `wcm serve --seed fixtures/demo.json` in Debian's chromium (issue 48): a list's
 * time of an older day says the time too, in the viewer's zone; a demo contact has related
 * records, so the "same contact" panel shows something; the voice page on a phone is stacked rows
 * that fit the screen, as the inbox is.
 */
warnNoBrowser("The dashboard's phone test");
const ws = (rest = '') => `/dashboard/workspaces/${demo.ws1}${rest}`;

describe('the demo dashboard in chromium', () => {
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
    beforeAll(async () => {
      dir = tempDir('wcm-phone-');
      server = await spawnServe(['--data', path.join(dir.dir, 'store.json'), '--seed', DEMO], {
        env: { WCM_CONFIG_DIR: dir.dir },
      });
      origin = new URL(server.url).origin;
      chromium = await launchChromium();
      browser = chromium.browser;
      page = await browser.newPage();
      // A viewer in New York: times move from UTC to there.
      await page.emulateTimezone('America/New_York');
      await page.goto(`${origin}/dashboard/sign-in`);
      await Promise.all([page.waitForNavigation(), page.click('button[value="usr_ada"]')]);
    }, 60_000);
    afterAll(async () => {
      await chromium?.close();
      server?.proc.kill();
      await server?.proc;
      dir?.cleanup();
    });

    it("the inbox's time of an older day shows the day and the time, in the viewer's zone", async () => {
      await page.setViewport({ width: 1280, height: 900 });
      await page.goto(`${origin}${ws('/threads')}`);
      // The newest demo thread's last message: 2026-11-20T11:38:00Z, 06:38 in New York (EST).
      const row = await page.$eval(`a[href="threads/${demo.newestThread}"]`, (a) => {
        const time = a.closest('tr')!.querySelector('time')!;
        return { text: time.textContent, title: time.title, datetime: time.getAttribute('datetime') };
      });
      expect(row.datetime).toBe('2026-11-20T11:38:00.000Z');
      expect(row.text).toMatch(/^Nov 20, 06:38\s?AM$/);
      expect(row.title).toBe('20 Nov 2026, 11:38 UTC');
      // The thread page's messages say the day and the time as well.
      await page.goto(`${origin}${ws(`/threads/${demo.newestThread}`)}`);
      const times = await page.$$eval('.msg time', (els) => els.map((e) => e.textContent ?? ''));
      expect(times.at(-1)).toMatch(/Nov 20, 2026, 06:38\s?AM EST/);
    }, 30_000);

    it("the demo has a returning customer: Lucia Chen's thread page lists her other thread, booking and order", async () => {
      await page.setViewport({ width: 1280, height: 900 });
      // Lucia's first thread (the voucher); fixtures/demo.json gives her a second one, a class booking and the order.
      await page.goto(`${origin}${ws('/threads/ce839999-314d-4d9d-aa88-fbb8592ce133')}`);
      const related = await page.$eval('#related', (s) => ({
        text: s.textContent ?? '',
        links: [...s.querySelectorAll('a')].map((a) => a.getAttribute('href')!),
        none: s.querySelectorAll('p.muted').length,
      }));
      expect(related.none).toBe(0); // no "None." under any heading
      expect(related.text).toContain('Booking a class myself');
      expect(related.text).toContain('Home barista class');
      expect(related.text).toContain('Home barista class voucher');
      expect(related.text).toContain('paid');
      expect(related.links).toEqual([
        ws('/threads/2f6b1c9e-7a43-4d58-9e21-5c8a0b3d4e71'),
        ws('/bookings'),
        ws('/open/9c8b7a6d-5e4f-4321-8a9b-0c1d2e3f4a5b'),
      ]);
    }, 30_000);

    it('at 375 px the voice page is stacked rows: nothing wider than the screen, no row scrolled sideways', async () => {
      await page.setViewport({ width: 375, height: 800, isMobile: true, hasTouch: true });
      await page.goto(`${origin}${ws('/voice')}`);
      const m = await page.evaluate(() => {
        const wrap = document.querySelector('.tablewrap')!;
        const rows = [...document.querySelectorAll<HTMLTableRowElement>('table.voice tbody tr')];
        return {
          page: document.documentElement.scrollWidth,
          inner: window.innerWidth,
          wrapScroll: wrap.scrollWidth,
          wrapClient: wrap.clientWidth,
          rows: rows.length,
          display: rows[0] ? getComputedStyle(rows[0]).display : '',
          head: getComputedStyle(document.querySelector('table.voice thead')!).display,
          widest: Math.max(...rows.map((r) => r.getBoundingClientRect().right)),
          // Each caller's number (the From cell's first text) on one line: a cut number is misread.
          cutNumbers: rows.filter((r) => {
            const text = [...r.cells[2]!.childNodes].find(
              (n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim(),
            );
            if (!text) return false;
            const range = document.createRange();
            range.selectNodeContents(text);
            return new Set([...range.getClientRects()].map((b) => Math.round(b.top))).size > 1;
          }).length,
        };
      });
      expect(m.rows).toBeGreaterThan(0);
      expect(m.page).toBeLessThanOrEqual(m.inner);
      expect(m.wrapScroll).toBeLessThanOrEqual(m.wrapClient);
      expect(m.widest).toBeLessThanOrEqual(m.inner);
      expect(m.display).toBe('grid');
      expect(m.head).toBe('none');
      expect(m.cutNumbers).toBe(0);
      // On a wide screen it is a table again.
      await page.setViewport({ width: 1280, height: 900 });
      expect(await page.$eval('table.voice thead', (t) => getComputedStyle(t).display)).toBe('table-header-group');
    }, 30_000);
  });
});
