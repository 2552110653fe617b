// Text from a server reaches the terminal without its control characters (docs/security.md#the-cli): a
// listing title, a thread's body or a problem's detail cannot retitle, clear or rewrite the
// terminal; --json keeps the data as it is (JSON-escaped). Through the real binary.
import { execa } from 'execa';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, wcm } from '../support/cli.js';
import { demo, onPort, tempDir } from '../support/server.js';

const HOSTILE = 'Menu\x1b]0;owned\x07\x1b[2J\x1b[H\r\u009b31mred\u0085';
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

let server: Awaited<ReturnType<typeof onPort>>;
let cfg: ReturnType<typeof tempDir>;
let listing: string;
let env: Record<string, string>;
beforeAll(async () => {
  server = await onPort();
  cfg = tempDir('wcm-ctl-');
  env = {
    WCM_CONFIG_DIR: cfg.dir,
    WCM_BASE_URL: server.url,
    WCM_TOKEN: demo.owner,
    WCM_WORKSPACE: demo.ws1,
    WCM_KEYCHAIN: 'off',
  };
  const res = await fetch(`${server.url}/workspaces/${demo.ws1}/lists`, {
    method: 'POST',
    headers: { authorization: `Bearer ${demo.owner}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      title: HOSTILE,
      template_slug: 'faq',
      items: [{ title: `Q${HOSTILE}`, description: `A${HOSTILE}` }],
    }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  listing = (await res.json()).data.id;
});
afterAll(async () => {
  await server.close();
  cfg.cleanup();
});

/** The binary on a pseudo-terminal (util-linux `script`), so stdout is a TTY and tables are drawn. */
async function onTerminal(args: string[], extra: Record<string, string> = {}) {
  const command = ['node', BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const r = await execa('script', ['-qfec', command, '/dev/null'], {
    reject: false,
    env: { ...env, NO_COLOR: '1', CI: '', TERM: 'xterm', ...extra },
    timeout: 30_000,
  });
  return { code: r.exitCode, screen: r.stdout };
}

describe('server text on a terminal', () => {
  it('lists ls (a table) shows the title with every control character replaced by U+FFFD', async () => {
    const r = await onTerminal(['lists', 'ls']);
    expect(r.code, r.screen).toBe(0);
    // `script` turns the program's \n into \r\n: those are the terminal's, the rest must be gone.
    const screen = r.screen.replace(/\r\n/g, '\n');
    expect(screen).toContain('Menu\uFFFD]0;owned\uFFFD\uFFFD[2J\uFFFD[H\uFFFD\uFFFD31mred\uFFFD');
    expect(screen).not.toMatch(CONTROLS);
  });

  it('lists show (a record and its items) shows no control character', async () => {
    const r = await onTerminal(['lists', 'show', listing]);
    expect(r.code, r.screen).toBe(0);
    const screen = r.screen.replace(/\r\n/g, '\n');
    expect(screen).toContain('Menu\uFFFD]0;owned');
    expect(screen).toContain('QMenu\uFFFD]0;owned');
    expect(screen).not.toMatch(CONTROLS);
  });

  it('piped (tab-separated) output has none either', async () => {
    const r = await wcm(['lists', 'ls'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('Menu\uFFFD]0;owned');
    expect(r.stdout).not.toMatch(CONTROLS);
  });

  it('--json keeps the title as the server sent it', async () => {
    const r = await wcm(['lists', 'show', listing, '--json'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('\\u001b]0;owned\\u0007');
    expect(JSON.parse(r.stdout).title).toBe(HOSTILE);
  });
});

describe('a problem from a hostile server', () => {
  let hostile: http.Server;
  let base: string;
  beforeAll(async () => {
    hostile = http.createServer((_req, res) => {
      res.writeHead(409, { 'content-type': 'application/problem+json' });
      res.end(
        JSON.stringify({
          type: 'about:blank',
          title: `Conflict${HOSTILE}`,
          status: 409,
          code: 'conflict',
          detail: `Detail${HOSTILE}`,
          resolution: `Fix${HOSTILE}`,
          errors: { [`field${HOSTILE}`]: [`bad${HOSTILE}`] },
          request_id: 'req_1',
        }),
      );
    });
    await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => hostile.close(() => r())));

  it('is printed with its control characters replaced; --json prints the problem escaped', async () => {
    const r = await wcm(['lists', 'ls'], { env: { ...env, WCM_BASE_URL: base } });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain('Conflict');
    expect(r.stderr).toContain('DetailMenu\uFFFD]0;owned');
    expect(r.stderr).toContain('FixMenu\uFFFD]0;owned');
    expect(r.stderr).toContain('badMenu\uFFFD]0;owned');
    expect(r.stderr.replace(/\n/g, '')).not.toMatch(CONTROLS);
    const json = await wcm(['lists', 'ls', '--json'], { env: { ...env, WCM_BASE_URL: base } });
    expect(json.stderr).toContain('\\u001b]0;owned');
  });
});
