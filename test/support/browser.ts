import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'puppeteer-core';

/** Debian's chromium (or $CHROMIUM_PATH). Browser tests run only with it; in CI its absence fails them. */
export const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (p): p is string => !!p && existsSync(p),
);
export const IN_CI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';

/** Says loudly, once per test file, that a browser test did not run (and that CI fails it). */
export function warnNoBrowser(what: string): void {
  if (CHROMIUM) return;
  process.stderr.write(
    `\n*** NO BROWSER: chromium was not found (looked at $CHROMIUM_PATH, /usr/bin/chromium, /usr/bin/chromium-browser). ${what} did NOT run. Install it with \`apt-get install -y chromium\`.${IN_CI ? ' In CI this is a failure.' : ''} ***\n`,
  );
}

/**
 * A headless chromium with a fresh profile, nothing fetched from outside; `close()` removes the
 * profile. `extraArgs` adds switches (e.g. `--host-resolver-rules` to play a DNS-rebinding page).
 */
export async function launchChromium(extraArgs: string[] = []): Promise<{ browser: Browser; close(): Promise<void> }> {
  const { default: puppeteer } = await import('puppeteer-core');
  const profile = mkdtempSync(path.join(tmpdir(), 'wcm-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
      ...extraArgs,
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
