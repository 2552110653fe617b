import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnServe, wcm } from '../support/cli.js';
import { DEMO, demo, tempDir } from '../support/server.js';

let dir: string;
let cleanup: () => void;
const procs: Array<{ kill(sig?: NodeJS.Signals): boolean }> = [];
beforeEach(() => {
  ({ dir, cleanup } = tempDir('wcm-local-'));
});
afterEach(() => {
  for (const p of procs.splice(0)) p.kill('SIGKILL');
  cleanup();
});
const env = () => ({ WCM_CONFIG_DIR: path.join(dir, 'config') });
const run = (args: string[]) => wcm(args, { cwd: dir, env: env() });

describe('wcm local import / export', () => {
  it('round trip: demo.json → export → import into a fresh file → export gives an identical file', async () => {
    expect((await run(['local', 'import', DEMO, '--data', 'a.json'])).exitCode).toBe(0);
    const e1 = await run(['local', 'export', 'e1.json', '--data', 'a.json']);
    expect(e1.exitCode).toBe(0);
    expect((await run(['local', 'import', 'e1.json', '--data', 'b.json'])).exitCode).toBe(0);
    expect((await run(['local', 'export', 'e2.json', '--data', 'b.json'])).exitCode).toBe(0);
    const [one, two] = ['e1.json', 'e2.json'].map((f) => readFileSync(path.join(dir, f), 'utf8'));
    expect(two).toBe(one);
    const doc = JSON.parse(one);
    expect(doc.version).toBe(1);
    expect(doc.tokens[0]).toHaveProperty('token_sha256');
    expect(one).not.toContain(demo.owner);
    // `-` writes to stdout, the same document.
    const out = await run(['local', 'export', '-', '--data', 'b.json']);
    expect(`${out.stdout}\n`).toBe(one); // execa strips the final newline
  });

  it('a fixture that does not exist: "not found" with the path, exit 1, and no data file or journal is created (issue 48)', async () => {
    const r = await run(['local', 'import', 'missing.json', 'also-missing.json', '--data', 'x.json']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      `Fixtures not found: ${path.join(dir, 'missing.json')}, ${path.join(dir, 'also-missing.json')}; nothing was imported, and no file was written.`,
    );
    expect(r.stderr).not.toContain('ENOENT');
    expect(existsSync(path.join(dir, 'x.json'))).toBe(false);
    expect(existsSync(path.join(dir, 'x.json.journal'))).toBe(false);
    // The same for `wcm serve --seed`, which neither creates .wcm/ nor listens.
    const s = await wcm(['serve', '--port', '0', '--seed', 'nosuch.json'], { cwd: dir, env: env() });
    expect(s.exitCode).toBe(1);
    expect(s.stderr).toContain(`Fixture not found: ${path.join(dir, 'nosuch.json')}`);
    expect(s.stdout).not.toContain('listening');
    expect(existsSync(path.join(dir, '.wcm'))).toBe(false);
  });

  it('a fixture with several mistakes reports every one in one pass, with the checks the API makes (issue 48)', async () => {
    const bad = path.join(dir, 'bad.json');
    const doc = JSON.parse(readFileSync(DEMO, 'utf8'));
    doc.listings[0].template_slug = 'nosuch';
    doc.listings[1].colour = 'red';
    doc.bookings[2].id = doc.bookings[0].id;
    doc.threads[3].workspace_id = '00000000-0000-4000-8000-000000000000';
    writeFileSync(bad, JSON.stringify(doc));
    const r = await run(['local', 'import', bad, '--data', 'x.json']);
    expect(r.exitCode).toBe(1);
    for (const line of [
      '$.listings[0].template_slug: Unknown template `nosuch`',
      '$.listings[1].colour: unknown member',
      `$.bookings[2].id: duplicate id \`${doc.bookings[0].id}\``,
      '$.threads[3].workspace_id: refers to workspaces `00000000-0000-4000-8000-000000000000`, which does not exist',
    ])
      expect(r.stderr).toContain(line);
    expect(r.stderr).toContain('nothing was imported');
    const e = await run(['local', 'export', '-', '--data', 'x.json']);
    expect(JSON.parse(e.stdout)).toEqual({ version: 1 });
  });

  it.each([
    [
      'a dangling reference',
      (d: any) => (d.threads[3].workspace_id = '00000000-0000-4000-8000-000000000000'),
      '$.threads[3].workspace_id: refers to workspaces',
    ],
    ['an unknown member', (d: any) => (d.listings[1].colour = 'red'), '$.listings[1].colour: unknown member'],
    ['a duplicate id', (d: any) => (d.bookings[2].id = d.bookings[0].id), '$.bookings[2].id: duplicate id'],
  ])(
    'a fixture with %s is rejected naming the JSON path, exit 1, and nothing is imported',
    async (_n, mutate, message) => {
      const bad = path.join(dir, 'bad.json');
      const doc = JSON.parse(readFileSync(DEMO, 'utf8'));
      mutate(doc);
      writeFileSync(bad, JSON.stringify(doc));
      const r = await run(['local', 'import', bad, '--data', 'x.json']);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain(message);
      expect(r.stderr).toContain('nothing was imported');
      const e = await run(['local', 'export', '-', '--data', 'x.json']);
      expect(JSON.parse(e.stdout)).toEqual({ version: 1 });
    },
  );

  it('import refuses while a server runs on the file, naming its pid; export works and sees acknowledged writes', async () => {
    const data = path.join(dir, 'live.json');
    const { url, proc } = await spawnServe(['--data', data, '--seed', DEMO], { cwd: dir, env: env() });
    procs.push(proc);
    const created = await fetch(`${url}/workspaces/${demo.ws1}/lists`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demo.owner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Acknowledged', template_slug: 'faq' }),
    });
    expect(created.status).toBe(201);

    const extra = path.join(dir, 'extra.json');
    writeFileSync(
      extra,
      JSON.stringify({ version: 1, users: [{ id: 'usr_new', name: 'New', email: 'n@example.com' }] }),
    );
    const r = await run(['local', 'import', extra, '--data', data]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`pid ${proc.pid}`);
    expect(r.stderr).toContain(data);
    expect(r.stderr).toMatch(/stop it/);

    const e = await run(['local', 'export', '-', '--data', data]);
    expect(e.exitCode).toBe(0);
    const doc = JSON.parse(e.stdout);
    expect(doc.listings.map((l: { title: string }) => l.title)).toContain('Acknowledged');
    expect(doc.users.map((u: { id: string }) => u.id)).not.toContain('usr_new');

    proc.kill('SIGTERM');
    expect((await proc).exitCode).toBe(0);
    const after = JSON.parse((await run(['local', 'export', '-', '--data', data])).stdout);
    expect(after.users.map((u: { id: string }) => u.id)).not.toContain('usr_new');
    // Once the server is gone, the import goes through.
    expect((await run(['local', 'import', extra, '--data', data])).exitCode).toBe(0);
    expect(
      JSON.parse((await run(['local', 'export', '-', '--data', data])).stdout).users.map((u: { id: string }) => u.id),
    ).toContain('usr_new');
  });

  it('export of a missing data file says so', async () => {
    const r = await run(['local', 'export', '-', '--data', 'nope.json']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('No data file');
    expect(existsSync(path.join(dir, 'nope.json'))).toBe(false);
  });
});
