import { chmodSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { startEmbedded } from '../../../src/store/pg/embedded.js';
import { clusterUrl, freshDatabase } from '../../support/postgres.js';

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
    const first = await startEmbedded({ dir });
    const password = readFileSync(path.join(dir, 'password'), 'utf8').trim();
    expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(statSync(path.join(dir, 'password')).mode & 0o777).toBe(0o600);
    expect(first.url).toBe(`postgres://postgres:${password}@127.0.0.1:${first.port}/postgres`);
    let sql = postgres(first.url, { max: 1 });
    await sql`create table kept (x int)`;
    await sql`insert into kept values (42)`;
    await sql.end();
    const leftover = serverPid(dir);

    // The first caller "was killed": its server still runs; the next start stops it and takes over.
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
