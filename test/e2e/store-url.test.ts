// `--store postgres://…` on the command line (the built binary): a password there is visible in
// `ps`, so wcm warns and offers a password file; a URL it refuses never echoes the password
// (docs/security.md, "The CLI").
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnServe, wcm } from '../support/cli.js';
import { freshDatabase } from '../support/postgres.js';

const scratch = () => mkdtempSync(path.join(tmpdir(), 'wcm-store-url-'));

describe('a store URL on the command line', () => {
  it('--store with a password warns that ps shows it, naming WCM_STORE and a password file; WCM_STORE does not', async () => {
    const flag = await wcm(['local', 'export', '-', '--store', 'postgres://u:hunter2@127.0.0.1:1/db']);
    expect(flag.exitCode).toBe(1);
    expect(flag.stderr).toMatch(
      /warning: the password in `--store` is visible to other users of this machine \(`ps`\)/,
    );
    expect(flag.stderr).toContain('WCM_STORE');
    expect(flag.stderr).toContain('?passfile=');
    expect(flag.stderr).not.toContain('hunter2');
    const env = await wcm(['local', 'export', '-'], { env: { WCM_STORE: 'postgres://u:hunter2@127.0.0.1:1/db' } });
    expect(env.exitCode).toBe(1);
    expect(env.stderr).not.toContain('warning:');
    expect(env.stderr).not.toContain('hunter2');
  });

  it.each([
    'postgresql//u:hunter2:more@h/db',
    'postgres:u:hun/ter2@h/db',
    'postgre://u:hunter2@h/db',
    'u:hunter2@h/db',
    'mysql://u:hun@ter2@h/db',
  ])('a mistyped URL %s is refused without its password', async (url) => {
    const r = await wcm(['local', 'export', '-', '--store', url]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/must be a postgres:\/\/ URL/);
    expect(r.stderr).toContain('***');
    expect(r.stderr).not.toMatch(/hunter2|hun\/ter2|ter2/);
  });

  it('?passfile= (pgpass format) and PGPASSFILE give the password, with no warning; a file others may read is refused', async () => {
    const db = new URL((await freshDatabase()).url);
    const dir = scratch();
    const file = path.join(dir, 'pgpass');
    writeFileSync(
      file,
      `# wcm's test database\nother:*:*:*:wrong\n${db.hostname}:${db.port}:*:${db.username}:${decodeURIComponent(db.password)}\n`,
      { mode: 0o600 },
    );
    const bare = new URL(db);
    bare.password = '';
    const viaQuery = `${bare.href}${bare.search ? '&' : '?'}passfile=${file}`;
    const r = await wcm(['local', 'export', '-', '--store', viaQuery]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('version');
    const viaEnv = await wcm(['local', 'export', '-', '--store', bare.href], { env: { PGPASSFILE: file } });
    expect(viaEnv.stderr).toBe('');
    expect(viaEnv.exitCode).toBe(0);

    // wcm serve shows the store as it was given: the passfile kept (a teammate can copy the line),
    // the password it read never shown.
    const served = await spawnServe(['--store', viaQuery], { env: { WCM_CONFIG_DIR: scratch() } });
    try {
      for (const end = Date.now() + 10_000; !served.lines.some((l) => l.startsWith('store: '));) {
        if (Date.now() > end) throw new Error(served.lines.join('\n'));
        await new Promise((r) => setTimeout(r, 25));
      }
      const line = served.lines.find((l) => l.startsWith('store: '))!;
      expect(line.startsWith(`store: ${viaQuery} (shared:`), line).toBe(true);
      expect(line).not.toContain(decodeURIComponent(db.password));
    } finally {
      served.proc.kill('SIGTERM');
      await served.proc;
    }

    const open = path.join(dir, 'open-pgpass');
    writeFileSync(open, `*:*:*:*:${decodeURIComponent(db.password)}\n`, { mode: 0o644 });
    const refused = await wcm(['local', 'export', '-', '--store', `${bare.href}?passfile=${open}`]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(
      `The password file ${open} may be read by others (mode 0644): \`chmod 600 ${open}\``,
    );
  });
});
