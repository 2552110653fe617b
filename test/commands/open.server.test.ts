import { chmodSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeIO, runInProcess, wcm } from '../support/cli.js';
import { demo, tempDir } from '../support/server.js';
import { clientHarness, type ClientHarness } from './harness.js';

const BASE = 'http://127.0.0.1:4999/v1';
const env = { WCM_BASE_URL: BASE, WCM_WORKSPACE: demo.ws1, WCM_CONFIG_DIR: '' };
const dash = `http://127.0.0.1:4999/dashboard/workspaces/${demo.ws1}`;

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir('wcm-open-');
  env.WCM_CONFIG_DIR = tmp.dir;
});
afterAll(() => tmp.cleanup());

/** A stand-in browser: records the URL it was asked to open. */
function recordingBrowser(): { command: string; opened(): string | undefined } {
  const log = path.join(tmp.dir, `opened-${Math.random().toString(36).slice(2)}.txt`);
  const command = path.join(tmp.dir, `browser-${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(command, `#!/bin/sh\nprintf '%s' "$1" > '${log}'\n`);
  chmodSync(command, 0o755);
  return { command, opened: () => (existsSync(log) ? readFileSync(log, 'utf8') : undefined) };
}

async function until(check: () => unknown, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
}

describe('wcm open', () => {
  it.each([
    [[], dash],
    [['inbox'], `${dash}/threads`],
    [['Orders'], `${dash}/orders`],
    [['overview'], dash],
    [[demo.newestThread], `${dash}/open/${demo.newestThread}`],
    [[demo.formCatering.toUpperCase()], `${dash}/open/${demo.formCatering}`],
  ])('piped, %j prints %s and opens nothing', async (args, url) => {
    const browser = recordingBrowser();
    const r = await runInProcess(['open', ...args], { env: { ...env, BROWSER: browser.command } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${url}\n`);
    await new Promise((res) => setTimeout(res, 100));
    expect(browser.opened()).toBeUndefined();
  });

  it('on a terminal, starts $BROWSER with the address and says so on stderr', async () => {
    const browser = recordingBrowser();
    const io = fakeIO({ tty: true });
    const r = await runInProcess(['open', demo.newestThread], { io, env: { ...env, BROWSER: browser.command } });
    expect(r.code).toBe(0);
    await until(browser.opened);
    expect(browser.opened()).toBe(`${dash}/open/${demo.newestThread}`);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Opening ${dash}/open/${demo.newestThread} in your browser.`);
  });

  it('on a terminal with BROWSER=none, prints the address', async () => {
    const r = await runInProcess(['open', 'inbox'], { io: fakeIO({ tty: true }), env: { ...env, BROWSER: 'none' } });
    expect(r.stdout).toBe(`${dash}/threads\n`);
  });

  it('when no browser can be started, prints the address and says why', async () => {
    const r = await runInProcess(['open'], {
      io: fakeIO({ tty: true }),
      env: { ...env, BROWSER: path.join(tmp.dir, 'no-such-browser') },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${dash}\n`);
    expect(r.stderr).toContain('Could not start');
  });

  it.each([['inbox!'], ['12345'], ['../../v1/me']])(
    'refuses %s with a usage error naming what it accepts',
    async (what) => {
      const r = await runInProcess(['open', what], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`\`${what}\` is neither a record id`);
      expect(r.stderr).toContain('inbox');
      expect(r.stdout).toBe('');
    },
  );

  it('without a workspace or a token, says it is not logged in (exit 4)', async () => {
    // With no workspace saved, the token's only one would be used: without a token there is none to ask.
    const r = await runInProcess(['open'], { env: { ...env, WCM_WORKSPACE: undefined } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('Not logged in');
  });

  it('threads show --web prints the thread page piped, without calling the API', async () => {
    const r = await runInProcess(['threads', 'show', demo.newestThread, '--web'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${dash}/threads/${demo.newestThread}\n`);
  });

  it('the real binary, piped, prints the address', async () => {
    const r = await wcm(['open', 'bookings'], { env: { ...env, BROWSER: undefined } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`${dash}/bookings`);
  });
});

describe('lists show --web', () => {
  let h: ClientHarness;
  beforeAll(async () => {
    h = await clientHarness();
  });
  afterAll(() => h.close());

  it("prints the listing's dashboard_url piped", async () => {
    const ls = await h.run(['lists', 'ls', '--json'], {
      env: { WCM_BASE_URL: h.base, WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws1 },
    });
    const first = JSON.parse(ls.stdout)[0] as { id: string; dashboard_url: string };
    const r = await h.run(['lists', 'show', first.id, '--web'], {
      env: { WCM_BASE_URL: h.base, WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws1 },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${first.dashboard_url}\n`);
  });
});
