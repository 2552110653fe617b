// `wcm local export|import|token --store URL` on a real PostgreSQL database (docs/sandbox.md): the
// round trip JSON → PostgreSQL → JSON is lossless, and an import lands for servers already running.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnServe, wcm } from '../support/cli.js';
import { freshSchema } from '../support/postgres.js';
import { demo, DEMO } from '../support/server.js';

const scratch = () => mkdtempSync(path.join(tmpdir(), 'wcm-sandbox-local-'));

describe('wcm local … --store postgres://…', () => {
  it('export after import gives back what the JSON store gives back, byte for byte', async () => {
    const { url } = await freshSchema();
    const dir = scratch();
    const env = { WCM_CONFIG_DIR: path.join(dir, 'cfg') };
    const intoPg = await wcm(['local', 'import', DEMO, '--store', url], { env });
    // Only the warning that a password on the command line shows in `ps` (store-url.test.ts).
    expect(intoPg.stderr).toMatch(/^warning: the password in `--store` is visible[^\n]*$/);
    expect(intoPg.stdout).toMatch(/^imported into postgres:\/\/.*:\*\*\*@.*: 4 users, 3 workspaces/);
    expect(intoPg.stdout).not.toContain(new URL(url).password);
    const intoFile = await wcm(['local', 'import', DEMO, '--data', path.join(dir, 'store.json')], { env });
    expect(intoFile.exitCode).toBe(0);
    const fromPg = path.join(dir, 'from-pg.json');
    const fromFile = path.join(dir, 'from-file.json');
    expect((await wcm(['local', 'export', fromPg, '--store', url], { env })).exitCode).toBe(0);
    expect((await wcm(['local', 'export', fromFile, '--data', path.join(dir, 'store.json')], { env })).exitCode).toBe(
      0,
    );
    expect(readFileSync(fromPg, 'utf8')).toBe(readFileSync(fromFile, 'utf8'));
    // And back: the export imported into a second database exports the same again.
    const second = await freshSchema();
    expect((await wcm(['local', 'import', fromPg, '--store', second.url], { env })).exitCode).toBe(0);
    const again = path.join(dir, 'again.json');
    expect((await wcm(['local', 'export', again, '--store', second.url], { env })).exitCode).toBe(0);
    expect(readFileSync(again, 'utf8')).toBe(readFileSync(fromPg, 'utf8'));
  });

  it('import --replace lands at once for a server running on the store; local token gets in', async () => {
    const { url } = await freshSchema();
    const dir = scratch();
    const env = { WCM_CONFIG_DIR: path.join(dir, 'cfg') };
    const s = await spawnServe(['--store', url, '--seed', DEMO], { env });
    try {
      const before = await fetch(`${s.url}/workspaces/${demo.ws1}/lists?limit=1`, {
        headers: { Authorization: `Bearer ${demo.owner}` },
      });
      expect(before.status).toBe(200);
      await before.arrayBuffer();
      const empty = path.join(dir, 'empty.json');
      const { writeFileSync } = await import('node:fs');
      writeFileSync(
        empty,
        JSON.stringify({ version: 1, users: [{ id: 'usr_solo', name: 'Solo', email: 'solo@example.com' }] }),
      );
      const replaced = await wcm(['local', 'import', empty, '--replace', '--store', url], { env });
      expect(replaced.stdout).toMatch(/^replaced the data of postgres:\/\/.*: 1 users/);
      // The demo token went with the demo data, for the running server too.
      const after = await fetch(`${s.url}/workspaces/${demo.ws1}/lists`, {
        headers: { Authorization: `Bearer ${demo.owner}` },
      });
      expect(after.status).toBe(401);
      await after.arrayBuffer();
      const noOwner = await wcm(['local', 'token', '--store', url, '--no-save'], { env });
      expect(noOwner.exitCode).toBe(1);
      expect(noOwner.stderr).toMatch(/no workspace with an owner/);
    } finally {
      s.proc.kill('SIGTERM');
      await s.proc;
    }
  });

  it('local token --store prints a token the running server accepts', async () => {
    const { url } = await freshSchema();
    const dir = scratch();
    const env = { WCM_CONFIG_DIR: path.join(dir, 'cfg') };
    const s = await spawnServe(['--store', url, '--seed', DEMO], { env });
    try {
      const issued = await wcm(['local', 'token', '--store', url, '--no-save'], { env });
      expect(issued.exitCode).toBe(0);
      const token = issued.stdout.trim();
      expect(token).toMatch(/^wcm_pat_/);
      const res = await fetch(`${s.url}/me`, { headers: { Authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    } finally {
      s.proc.kill('SIGTERM');
      await s.proc;
    }
  });

  it('refuses --data with --store, a URL that is not postgres://, and embedded outside serve', async () => {
    const both = await wcm(['local', 'export', '-', '--data', 'x.json', '--store', 'postgres://u:p@h/db']);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toMatch(/either `--data`.*or `--store`/);
    const bad = await wcm(['local', 'export', '-', '--store', 'mysql://u:hunter2@h/db']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/must be a postgres:\/\/ URL/);
    expect(bad.stderr).not.toContain('hunter2');
    const embedded = await wcm(['local', 'export', '-', '--store', 'embedded']);
    expect(embedded.exitCode).toBe(2);
    expect(embedded.stderr).toMatch(/`--store embedded` is for `wcm serve`/);
    const down = await wcm(['local', 'export', '-', '--store', 'postgres://u:hunter2@127.0.0.1:1/db']);
    expect(down.exitCode).toBe(1);
    expect(down.stderr).toMatch(/database is unavailable/);
    expect(down.stderr).not.toContain('hunter2');
  });
});
