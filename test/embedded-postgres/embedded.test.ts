import { chmodSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { startEmbedded } from '../../src/embedded-postgres/embedded.js';
import { clusterUrl, freshDatabase, templateCopy } from '../support/postgres.js';
import { ROOT } from '../support/server.js';

/** A process that starts the cluster in argv[1], prints its URL and waits to be killed. */
const CALLER = `
const { startEmbedded } = await import(${JSON.stringify(path.join(ROOT, 'dist/src/embedded-postgres/embedded.js'))});
const c = await startEmbedded({ dir: process.argv[1] });
console.log(c.url);
setInterval(() => {}, 1000);
`;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const serverPid = (dir: string) => Number(readFileSync(path.join(dir, 'data/postmaster.pid'), 'utf8').split('\n')[0]);

describe('startEmbedded', () => {
  it('makes a cluster on first use, keeps its data and password, and stops one a killed caller left running', async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'wcm-pg-')), 'cluster');
    chmodSync(path.dirname(dir), 0o711); // as root the server runs as `postgres`, which must get through
    // The first caller is a process of its own, killed with SIGKILL once its server is up.
    const caller = execa(process.execPath, ['--input-type=module', '-e', CALLER, dir], { reject: false });
    const firstUrl = await new Promise<string>((resolve, reject) => {
      caller.stdout!.once('data', (d) => resolve(String(d).trim()));
      void caller.then((r) => reject(new Error(`the caller exited first: ${r.stderr}`)));
    });
    const password = readFileSync(path.join(dir, 'password'), 'utf8').trim();
    expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(statSync(path.join(dir, 'password')).mode & 0o777).toBe(0o600);
    expect(firstUrl).toMatch(new RegExp(`^postgres://postgres:${password}@127\\.0\\.0\\.1:\\d+/postgres$`));
    let sql = postgres(firstUrl, { max: 1 });
    await sql`create table kept (x int)`;
    await sql`insert into kept values (42)`;
    await sql.end();
    const leftover = serverPid(dir);
    caller.kill('SIGKILL');
    await caller;
    expect(alive(leftover)).toBe(true); // its own process group: the caller's death does not stop it

    // The next start stops the server left running and takes over, with the same password and data.
    const second = await startEmbedded({ dir });
    expect(alive(leftover)).toBe(false);
    expect(second.url).toContain(`:${password}@`);
    sql = postgres(second.url, { max: 1 });
    expect(await sql`select x from kept`).toEqual([{ x: 42 }]);
    await sql.end();
    const pid = serverPid(dir);
    await second.stop();
    await second.stop(); // idempotent
    expect(alive(pid)).toBe(false);

    // A start that fails says why, with the end of the server's log.
    const taken = Number(new URL(clusterUrl()).port);
    await expect(startEmbedded({ dir, port: taken })).rejects.toThrow(/exited while starting[\s\S]*already in use/);
  }, 60_000);
});

describe('freshDatabase', () => {
  let first = '';
  it('gives each caller an empty database of its own', async () => {
    const a = await freshDatabase();
    const b = await freshDatabase();
    expect(a.name).not.toBe(b.name);
    const sql = postgres(a.url, { max: 1 });
    await sql`create table t (x int)`;
    expect((await sql`select current_database() as db`)[0].db).toBe(a.name);
    await sql.end();
    first = a.name;
  });

  it('drops it when the test that made it is done', async () => {
    const sql = postgres(clusterUrl(), { max: 1 });
    expect(await sql`select 1 from pg_database where datname = ${first}`).toHaveLength(0);
    await sql.end();
  });
});

describe('templateCopy', () => {
  it('fills the template once per process and gives each caller a copy of its own', async () => {
    let fills = 0;
    const fill = async (url: string) => {
      fills++;
      const sql = postgres(url, { max: 1 });
      await sql`create table t (x int)`;
      await sql`insert into t values (1)`;
      await sql.end();
    };
    const key = `t${process.pid}`;
    const a = await templateCopy(key, fill);
    const b = await templateCopy(key, fill);
    expect(fills).toBe(1);
    expect(a.name).not.toBe(b.name);
    const sa = postgres(a.url, { max: 1 });
    const sb = postgres(b.url, { max: 1 });
    try {
      await sa`insert into t values (2)`;
      expect((await sa`select x from t order by x`).map((r) => r.x)).toEqual([1, 2]);
      expect((await sb`select x from t order by x`).map((r) => r.x)).toEqual([1]);
    } finally {
      await sa.end();
      await sb.end();
    }
  });
});
