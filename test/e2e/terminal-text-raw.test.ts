// More server text on a terminal (docs/security.md, "The CLI"): the names `auth login` prints and
// a non-JSON `wcm api` body reach a TTY without their control characters; piped, `wcm api` keeps
// the bytes as sent. The built binary on a pseudo-terminal (util-linux `script`), against a server
// that sends hostile text.
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, wcm } from '../support/cli.js';
import { tempDir } from '../support/server.js';

const HOSTILE = 'Ada\x1b]0;owned\x07\x1b[2J\x1b[H\r\u009b31mred';
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const WS = '7f1c0f3e-1d2a-4c5b-9e8f-0a1b2c3d4e5f';

let server: http.Server;
let base: string;
let dir: ReturnType<typeof tempDir>;
beforeAll(async () => {
  dir = tempDir('wcm-terminal-raw-');
  server = http.createServer((req, res) => {
    if (req.url === '/v1/me') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(
        JSON.stringify({
          data: {
            user: { id: WS, name: HOSTILE, email: `ada${HOSTILE}@example.com` },
            token: { name: 't', kind: 'personal', abilities: ['content:read'], expires_at: null },
            workspaces: [{ id: WS, name: `Shop${HOSTILE}`, role: 'owner' }],
          },
          meta: { request_id: 'r' },
        }),
      );
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`plain ${HOSTILE} body\n`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  dir.cleanup();
});

const env = () => ({ WCM_CONFIG_DIR: path.join(dir.dir, 'cfg'), WCM_KEYCHAIN: 'off' });
/** `command` run by sh on a pseudo-terminal: stdout is a TTY (stdin may be redirected inside `command`). */
async function onTerminal(command: string) {
  const r = await execa('script', ['-qfec', command, '/dev/null'], {
    reject: false,
    env: { ...env(), NO_COLOR: '1', CI: '', TERM: 'xterm' },
    timeout: 30_000,
  });
  return { code: r.exitCode, screen: r.stdout.replace(/\r\n/g, '\n') };
}

describe('server text on a terminal, more places', () => {
  it('auth login prints the user, e-mail and workspace names with control characters replaced', async () => {
    const token = path.join(dir.dir, 'token');
    writeFileSync(token, 'wcm_pat_terminalText\n');
    const r = await onTerminal(`node '${BIN}' auth login --with-token --base-url '${base}' < '${token}'`);
    expect(r.code, r.screen).toBe(0);
    expect(r.screen).toContain('as Ada\uFFFD]0;owned\uFFFD\uFFFD[2J\uFFFD[H\uFFFD\uFFFD31mred <');
    expect(r.screen).toContain(`${WS}  ShopAda\uFFFD]0;owned`);
    expect(r.screen).not.toMatch(CONTROLS);
  });

  it('wcm api: a non-JSON body on a terminal has no control characters; piped it is the bytes sent', async () => {
    const r = await onTerminal(`node '${BIN}' api /anything --base-url '${base}'`);
    expect(r.code, r.screen).toBe(0);
    expect(r.screen).toContain('plain Ada\uFFFD]0;owned\uFFFD');
    expect(r.screen).not.toMatch(CONTROLS);
    const piped = await wcm(['api', '/anything', '--base-url', base], { env: env() });
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(piped.stdout).toBe(`plain ${HOSTILE} body`);
  });
});
