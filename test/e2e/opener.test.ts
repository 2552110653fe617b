// The CLI's opener (docs/security.md#the-cli, issue 37 item 7) through the real binary on a pseudo-terminal:
// `$BROWSER` first, by argument vector (no shell), and only for http(s) addresses on the origin of
// the server the profile targets. $BROWSER is a small script that records its argv.
import { execa } from 'execa';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openerCommand } from '../../src/cli/browser.js';
import { BIN } from '../support/cli.js';
import { demo, onPort, tempDir } from '../support/server.js';

let server: Awaited<ReturnType<typeof onPort>>;
let origin: string;
let tmp: ReturnType<typeof tempDir>;
beforeAll(async () => {
  server = await onPort();
  origin = new URL(server.url).origin;
  tmp = tempDir('wcm-opener-');
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

/** A stand-in browser: writes each argument it got on its own line. */
function recordingBrowser(): { command: string; argv(): string[] | undefined } {
  const id = Math.random().toString(36).slice(2);
  const log = path.join(tmp.dir, `argv-${id}.txt`);
  const command = path.join(tmp.dir, `browser-${id}.sh`);
  writeFileSync(
    command,
    `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > '${log}.part' && mv '${log}.part' '${log}'\n`,
  );
  chmodSync(command, 0o755);
  return { command, argv: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(0, -1) : undefined) };
}

/** The binary on a pseudo-terminal (util-linux `script`): stdout is a TTY, so it opens rather than prints. */
function onTerminal(args: string[], env: Record<string, string>) {
  const command = ['node', BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  // No DISPLAY: $BROWSER must be used without one.
  return execa('script', ['-qfec', command, '/dev/null'], {
    reject: false,
    env: {
      NO_COLOR: '1',
      CI: '',
      TERM: 'xterm',
      DISPLAY: '',
      WAYLAND_DISPLAY: '',
      WCM_KEYCHAIN: 'off',
      WCM_CONFIG_DIR: tmp.dir,
      ...env,
    },
    extendEnv: true,
    timeout: 30_000,
  });
}

const until = async (check: () => unknown, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('$BROWSER first', () => {
  it('auth login --web starts $BROWSER (with its own arguments, no shell) on the authorize URL of the server', async () => {
    const browser = recordingBrowser();
    // Nobody signs in: the login ends at its --timeout, which starts before the browser does (2 s: a margin
    // for a loaded host).
    const login = onTerminal(['auth', 'login', '--web', '--base-url', `${origin}/v1`, '--timeout', '2'], {
      BROWSER: `${browser.command} --new-window`,
    });
    await until(browser.argv);
    const [flag, url, ...rest] = browser.argv()!;
    expect(flag).toBe('--new-window');
    expect(rest).toEqual([]);
    expect(url.startsWith(`${origin}/oauth/authorize?`)).toBe(true);
    expect(new URL(url).searchParams.get('client_id')).toBe('wcm-cli');
    const r = await login;
    expect(r.stdout).toContain('Opened your browser');
  });

  it('wcm open passes the dashboard address as one argument, whatever it holds', async () => {
    const browser = recordingBrowser();
    const r = await onTerminal(['open', 'inbox', '--base-url', `${origin}/v1`, '--workspace', demo.ws1], {
      BROWSER: browser.command,
      WCM_TOKEN: demo.owner,
    });
    expect(r.exitCode, r.stdout).toBe(0);
    await until(browser.argv);
    expect(browser.argv()).toEqual([`${origin}/dashboard/workspaces/${demo.ws1}/threads`]);
  });

  it('openerCommand: $BROWSER, else open / explorer.exe / xdg-open, each an argument vector', () => {
    const url = 'http://127.0.0.1:1/a?b=1&c=$(id)';
    expect(openerCommand(url, { BROWSER: 'firefox --private-window' }, 'linux')).toEqual([
      'firefox',
      ['--private-window', url],
    ]);
    expect(openerCommand(url, {}, 'darwin')).toEqual(['open', [url]]);
    expect(openerCommand(url, {}, 'win32')).toEqual(['explorer.exe', [url]]);
    expect(openerCommand(url, {}, 'linux')).toEqual(['xdg-open', [url]]);
  });
});

describe('only http(s) on the profile origin', () => {
  let hostile: http.Server;
  let base: string;
  let dashboardUrl = '';
  beforeAll(async () => {
    const real = await (
      await fetch(`${server.url}/workspaces/${demo.ws1}/lists?limit=1`, {
        headers: { authorization: `Bearer ${demo.owner}` },
      })
    ).json();
    const listing = real.data[0];
    hostile = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { ...listing, items: [], dashboard_url: dashboardUrl } }));
    });
    await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => hostile.close(() => r())));

  it.each([
    ['file:///etc/passwd'],
    ['http://evil.example/phish'],
    ['javascript:alert(1)'],
    ['https://127.0.0.1:1/dashboard'],
  ])('lists show --web refuses a dashboard_url of %s: exit 1, nothing started', async (url) => {
    dashboardUrl = url;
    const browser = recordingBrowser();
    const r = await onTerminal(
      ['lists', 'show', '249663da-4645-4a27-80da-510adb5532b5', '--web', '--base-url', base, '--workspace', demo.ws1],
      { BROWSER: browser.command, WCM_TOKEN: demo.owner },
    );
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain('Not opening');
    expect(r.stdout).toContain('only sent to http(s) addresses on http://127.0.0.1:');
    await new Promise((res) => setTimeout(res, 300));
    expect(browser.argv()).toBeUndefined();
  });

  it('lists show --web opens a dashboard_url on the same origin', async () => {
    dashboardUrl = `${new URL(base).origin}/dashboard/workspaces/${demo.ws1}/lists/x`;
    const browser = recordingBrowser();
    const r = await onTerminal(
      ['lists', 'show', '249663da-4645-4a27-80da-510adb5532b5', '--web', '--base-url', base, '--workspace', demo.ws1],
      { BROWSER: browser.command, WCM_TOKEN: demo.owner },
    );
    expect(r.exitCode, r.stdout).toBe(0);
    await until(browser.argv);
    expect(browser.argv()).toEqual([dashboardUrl]);
  });
});
