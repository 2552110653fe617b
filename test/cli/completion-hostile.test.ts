// Shell completion against a server that sends hostile ids and labels (docs/security.md, "The CLI"):
// only ids of the contract's grammar reach the shell, labels lose their control characters, real
// bash quotes every candidate, and a TAB never sends an admin token.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runInProcess } from '../support/cli.js';
import { tempDir } from '../support/server.js';

const WS = '7f1c0f3e-1d2a-4c5b-9e8f-0a1b2c3d4e5f';
const GOOD = '0b7e2c1a-3d4f-4a5b-8c9d-0e1f2a3b4c5d';
const ADMIN = 'wcm_admin_completionMustNeverSendThis0000';

let dir: ReturnType<typeof tempDir>;
let marker: string;
let hostile: http.Server;
let base: string;
const seen: Array<{ url: string; authorization?: string }> = [];

beforeAll(async () => {
  dir = tempDir('wcm-completion-hostile-');
  marker = path.join(dir.dir, 'ran');
  const evil = `$(touch\${IFS}${marker})`;
  hostile = http.createServer((req, res) => {
    seen.push({ url: req.url!, authorization: req.headers.authorization });
    const json = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const p = new URL(req.url!, 'http://x').pathname;
    if (p === `/v1/workspaces/${WS}/lists`)
      return json({
        data: [
          { id: evil, title: 'innocent' },
          { id: `${GOOD};touch ${marker}`, title: 'semicolon' },
          { id: GOOD, title: 'Menu \x1b]0;pwned\x07\x1b[2J\x9b31m title' },
        ],
        next_cursor: null,
      });
    if (p === '/v1/me')
      return json({
        data: {
          id: GOOD,
          workspaces: [
            { id: `\`touch ${marker}\``, name: 'bad' },
            { id: WS, name: 'W\x1b[31m' },
          ],
        },
      });
    if (p === '/v1/setup/listing-templates')
      return json({
        data: [
          { slug: `faq$(touch ${marker})`, name: 'x' },
          { slug: 'faq', name: 'FAQ\x1b]8;;http://evil\x07' },
        ],
      });
    if (p.startsWith('/_emulator/'))
      return json({ data: [{ name: `snap$(touch ${marker})`, saved_at: '2026-01-01T00:00:00Z' }] });
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise((r) => hostile.close(r));
  dir.cleanup();
});

const env = () => ({
  WCM_CONFIG_DIR: dir.dir,
  WCM_BASE_URL: base,
  WCM_TOKEN: 'wcm_pat_completionToken',
  WCM_WORKSPACE: WS,
  WCM_ADMIN_TOKEN: ADMIN,
});

async function engine(line: string) {
  const r = await runInProcess(['__complete', ...line.split(' ')], { env: env() });
  expect(r.code).toBe(0);
  return r.stdout;
}

describe('completion against a hostile server', () => {
  it('offers only ids of the grammar (UUIDs), labels without control characters', async () => {
    const out = await engine('lists show ');
    expect(out).toBe(`${GOOD}\tMenu ]0;pwned[2J31m title\n:done\n`);
    expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    const ws = await engine('lists ls -w ');
    expect(ws).toBe(`${WS}\tW[31m\n:done\n`);
    const templates = await engine('lists create --template ');
    expect(templates.split('\n')[0]).toBe('faq\tFAQ]8;;http://evil');
    expect(templates).not.toContain('$(');
    expect(existsSync(marker)).toBe(false);
  });

  it('never sends an admin token: snapshot and state names are not asked of the control plane', async () => {
    seen.length = 0;
    expect(await engine('local snapshot restore ')).toBe(':done\n');
    expect(await engine('local reset --to ')).toMatch(/^seed\t.*\nempty\t.*\n:done\n$/);
    expect(seen.filter((s) => s.url.startsWith('/_emulator'))).toEqual([]);
    expect(seen.map((s) => s.authorization)).not.toContain(`Bearer ${ADMIN}`);
  });
});

describe('the bash script quotes what it offers', () => {
  it('a candidate `$(touch …)` from wcm __complete is inserted quoted, and the line runs nothing', async () => {
    const script = (await runInProcess(['completion', 'bash'])).stdout;
    const file = path.join(dir.dir, 'wcm.bash');
    writeFileSync(file, script);
    // A `wcm` on PATH answering as a compromised server's ids would: straight to the script.
    const bin = path.join(dir.dir, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      path.join(bin, 'wcm'),
      `#!/bin/sh\nprintf '%s\\t%s\\n' '$(touch\${IFS}${marker})' 'label' '\`touch ${marker}\`' 'l' 'a;touch${'${IFS}'}${marker}' 'l'\necho :done\n`,
    );
    chmodSync(path.join(bin, 'wcm'), 0o755);
    // What bash does with COMPREPLY on TAB and then Enter: the candidate becomes part of the line,
    // which the shell parses and runs.
    const r = await execa(
      'bash',
      [
        '-c',
        `source '${file}'; COMP_WORDS=(wcm lists show ''); COMP_CWORD=3; _wcm; ` +
          `printf '%s\\n' "\${COMPREPLY[@]}"; for c in "\${COMPREPLY[@]}"; do eval "wcm_line=( wcm lists show $c )"; printf 'arg=%s\\n' "\${wcm_line[3]}"; done`,
      ],
      { env: { PATH: `${bin}:${process.env.PATH}` }, reject: false },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    // Each candidate arrives as the one literal word the server sent.
    expect(r.stdout).toContain(`arg=$(touch\${IFS}${marker})`);
    expect(r.stdout).toContain(`arg=\`touch ${marker}\``);
    expect(r.stdout).toContain(`arg=a;touch\${IFS}${marker}`);
  });

  it('the built binary on PATH: real bash completes the hostile server to its one good id', async () => {
    const bin = path.join(dir.dir, 'real-bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, 'wcm'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(path.join(bin, 'wcm'), 0o755);
    const file = path.join(dir.dir, 'wcm.bash');
    const r = await execa(
      'bash',
      [
        '-c',
        `source '${file}'; COMP_WORDS=(wcm lists show ''); COMP_CWORD=3; _wcm; for c in "\${COMPREPLY[@]}"; do eval "x=( $c )"; printf '%s\\n' "\${x[0]}"; done`,
      ],
      { env: { ...env(), PATH: `${bin}:${process.env.PATH}` }, reject: false },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(GOOD);
    expect(r.stdout).not.toContain('\x1b');
    expect(existsSync(marker)).toBe(false);
  });
});
