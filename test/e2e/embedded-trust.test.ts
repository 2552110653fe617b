// `wcm serve --store embedded` (the built binary) trusts only a cluster directory that is its own,
// and hands out a role that is not a superuser, its server started without wcm's secrets
// (docs/security.md, "The embedded PostgreSQL").
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbedded } from '../../src/embedded-postgres/embedded.js';
import { storeUrlOf } from '../../src/cli/local.js';
import { BIN, wcm } from '../support/cli.js';

const NOBODY = 65534;
const SECRETS = {
  STRIPE_SECRET_KEY: 'sk_test_embeddedEnvSecret0000000000',
  WCM_ADMIN_TOKEN: 'wcm_admin_embeddedEnvSecret000000000000000',
  WCM_WEBHOOK_SECRET: 'whsec_embeddedEnvSecret000000000000',
};

/** A project directory for `wcm serve --store embedded`, searchable by `postgres` when run as root. */
function project(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'wcm-embedded-trust-'));
  chmodSync(dir, 0o711);
  return dir;
}

/** A directory the way another local user would plant it: `.wcm/postgres` with a password of theirs. */
function planted(mode: number, uid?: number): { cwd: string; dir: string } {
  const cwd = project();
  const dir = path.join(cwd, '.wcm/postgres');
  mkdirSync(dir, { recursive: true });
  chmodSync(path.join(cwd, '.wcm'), 0o711);
  writeFileSync(path.join(dir, 'password'), 'planted-password\n', { mode: 0o600 });
  chmodSync(dir, mode);
  if (uid !== undefined) {
    chownSync(dir, uid, uid);
    chownSync(path.join(dir, 'password'), uid, uid);
  }
  return { cwd, dir };
}

const serveEmbedded = (cwd: string, env: Record<string, string> = {}) =>
  wcm(['serve', '--store', 'embedded', '--port', '0'], { cwd, env: { WCM_CONFIG_DIR: path.join(cwd, 'cfg'), ...env } });

function refusedWithoutUse(r: { exitCode?: number; stderr: string }, dir: string, why: RegExp) {
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toContain(`Refusing to use ${dir}`);
  expect(r.stderr).toMatch(why);
  expect(r.stderr).toMatch(/remove it \(`rm -rf? /);
  // Nothing was made from it: no cluster, no log, the planted password as it was.
  expect(existsSync(path.join(dir, 'data'))).toBe(false);
  expect(existsSync(path.join(dir, 'server.log'))).toBe(false);
}

describe.runIf(process.getuid?.() === 0)('the embedded cluster refuses a directory that is not its own', () => {
  it('a .wcm/postgres left 0777 with a planted password file: refused, naming the path and the fix', async () => {
    const { cwd, dir } = planted(0o777);
    const r = await serveEmbedded(cwd);
    refusedWithoutUse(r, dir, /others may read or write it \(mode 0777\)/);
    expect(r.stderr).toContain(`chmod 700 ${dir}`);
    expect(readFileSync(path.join(dir, 'password'), 'utf8')).toBe('planted-password\n');
  });

  it('a .wcm/postgres (0700) owned by another user: refused', async () => {
    const { cwd, dir } = planted(0o700, NOBODY);
    const r = await serveEmbedded(cwd);
    refusedWithoutUse(r, dir, new RegExp(`owned by uid ${NOBODY}, not by you`));
  });

  it('a password file of another user, or one others may read, or a link, in a directory of ours: refused', async () => {
    for (const plant of [
      (file: string) => chownSync(file, NOBODY, NOBODY),
      (file: string) => chmodSync(file, 0o644),
      (file: string) => {
        writeFileSync(`${file}.target`, 'planted-password\n', { mode: 0o600 });
        rmSync(file);
        symlinkSync(`${file}.target`, file);
      },
    ]) {
      const { cwd, dir } = planted(0o700);
      plant(path.join(dir, 'password'));
      const r = await serveEmbedded(cwd);
      refusedWithoutUse(r, path.join(dir, 'password'), /owned by uid|others may read|symbolic link/);
    }
  });

  it('a .wcm that others may write to, or that another user owns: refused before the cluster directory is made', async () => {
    for (const [mode, uid, why] of [
      [0o777, undefined, /others may write to it \(mode 0777\)/],
      [0o755, NOBODY, new RegExp(`it is owned by uid ${NOBODY}, not by you`)],
    ] as const) {
      const cwd = project();
      const wcmDir = path.join(cwd, '.wcm');
      mkdirSync(wcmDir);
      chmodSync(wcmDir, mode);
      if (uid !== undefined) chownSync(wcmDir, uid, uid);
      const r = await serveEmbedded(cwd);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain(`Refusing to use ${wcmDir}:`);
      expect(r.stderr).toMatch(why);
      expect(existsSync(path.join(wcmDir, 'postgres'))).toBe(false);
    }
  });

  it('a server.log planted as a link to another file: refused, never written through', async () => {
    const { cwd, dir } = planted(0o700);
    const victim = path.join(cwd, 'victim.txt');
    writeFileSync(victim, 'untouched\n');
    symlinkSync(victim, path.join(dir, 'server.log'));
    const r = await wcm(['serve', '--store', 'embedded', '--port', '0'], {
      cwd,
      env: { WCM_CONFIG_DIR: path.join(cwd, 'cfg') },
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`Refusing to use ${path.join(dir, 'server.log')}: it is a symbolic link`);
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
    expect(existsSync(path.join(dir, 'data'))).toBe(false);
  });
});

/** `wcm serve --store embedded` until it listens; its stderr collected. */
async function startServe(cwd: string, env: Record<string, string>) {
  const proc = execa('node', [BIN, 'serve', '--store', 'embedded', '--port', '0', '--payments', 'local'], {
    cwd,
    reject: false,
    buffer: false,
    env: { NO_COLOR: '1', CI: 'true', WCM_CONFIG_DIR: path.join(cwd, 'cfg'), ...env },
  });
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = proc.then((r) => {
    throw new Error(`wcm serve exited ${r.exitCode}: ${err}`);
  });
  const listening = new Promise<string>((resolve) =>
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /wcm listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    }),
  );
  const url = await Promise.race([listening, exited]);
  void exited.catch(() => undefined);
  return { proc, url, stderr: () => err };
}

describe('the embedded store hands out a role of its own, its server started without wcm secrets', () => {
  const stops: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const stop of stops) await stop();
  });

  it('the printed URL is not a superuser, cannot read the server environment, which holds none of them', async () => {
    const cwd = project();
    const s = await startServe(cwd, SECRETS);
    stops.push(async () => {
      s.proc.kill('SIGTERM');
      await s.proc;
    });
    const dir = path.join(cwd, '.wcm/postgres');
    const printed = /share it with --store '([^']+)'/.exec(s.stderr())?.[1];
    expect(printed).toBeDefined();
    // No password in what is printed: it is in a 0600 pgpass file beside the cluster.
    expect(new URL(printed!).password).toBe('');
    expect(new URL(printed!).username).toBe('wcm');
    expect(new URL(printed!).searchParams.get('passfile')).toBe(path.join(dir, 'pgpass'));
    expect(s.stderr()).not.toContain(readFileSync(path.join(dir, 'password'), 'utf8').trim());

    const pid = Number(readFileSync(path.join(dir, 'data/postmaster.pid'), 'utf8').split('\n')[0]);
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(environ).not.toContain(name);
      expect(environ).not.toContain(value);
    }

    const url = storeUrlOf({ env: {}, cwd }, { store: printed })!;
    const sql = postgres(url, { max: 1, onnotice: () => undefined });
    try {
      const [me] = await sql<Array<{ rolsuper: boolean; owner: string }>>`
        select rolsuper, (select pg_get_userbyid(datdba) from pg_database where datname = current_database()) as owner
        from pg_roles where rolname = current_user`;
      expect(me).toEqual({ rolsuper: false, owner: 'wcm' });
      const read = await sql`select pg_read_binary_file(${`/proc/${pid}/environ`})`.catch((e: { code?: string }) => e);
      expect((read as { code?: string }).code).toBe('42501'); // insufficient_privilege
      const prog = await sql.unsafe(`copy (select 1) to program 'true'`).catch((e: { code?: string }) => e);
      expect((prog as { code?: string }).code).toBe('42501');
    } finally {
      await sql.end({ timeout: 1 });
    }
    // Other processes use the printed URL as it is (the password read from its passfile).
    const exported = await wcm(['local', 'export', '-', '--store', printed!], { cwd });
    expect(exported.stderr).toBe('');
    expect(exported.exitCode).toBe(0);
    expect(JSON.parse(exported.stdout)).toHaveProperty('users');
  }, 120_000);

  it('a cluster an earlier wcm made (database wcm owned by the superuser) is handed to the role and keeps its data', async () => {
    const cwd = project();
    const dir = path.join(cwd, '.wcm/postgres');
    mkdirSync(path.dirname(dir), { mode: 0o711 });
    const old = await startEmbedded({ dir });
    const sql = postgres(old.url, { max: 1, onnotice: () => undefined });
    await sql`create database wcm`;
    await sql.end();
    const oldWcm = postgres(`${old.url.replace(/\/postgres$/, '')}/wcm`, { max: 1, onnotice: () => undefined });
    await oldWcm`create table kept (x integer)`;
    await oldWcm`insert into kept values (7)`;
    await oldWcm.end();
    await old.stop();
    const first = await startServe(cwd, {});
    first.proc.kill('SIGTERM');
    await first.proc;
    const again = await startServe(cwd, {});
    stops.push(async () => {
      again.proc.kill('SIGTERM');
      await again.proc;
    });
    const health = await fetch(`${again.url}/me`, { headers: { Authorization: 'Bearer nothing' } });
    expect(health.status).toBe(401);
    const printed = /share it with --store '([^']+)'/.exec(again.stderr())![1]!;
    const wcmSql = postgres(storeUrlOf({ env: {}, cwd }, { store: printed })!, { max: 1, onnotice: () => undefined });
    try {
      const tables = await wcmSql<Array<{ tableowner: string }>>`
        select distinct tableowner from pg_tables where schemaname = 'public'`;
      expect(tables.map((t) => t.tableowner)).toEqual(['wcm']);
      expect(await wcmSql`select x from kept`).toEqual([{ x: 7 }]);
    } finally {
      await wcmSql.end({ timeout: 1 });
    }
  }, 180_000);
});
