// The store kept in PostgreSQL (docs/sandbox.md): several Store instances on one real database, as
// several `wcm serve --store` processes would be. Each test gets a fresh database on the run's
// PostgreSQL (test/support/postgres.ts).
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/store/pg/errors.js';
import { migrate, MIGRATIONS, SchemaTooNewError } from '../../src/store/pg/migrations.js';
import { Store } from '../../src/store/store.js';
import { freshDatabase } from '../support/postgres.js';

const open: Store[] = [];
async function shared(url: string): Promise<Store> {
  const s = await Store.openShared(url);
  open.push(s);
  return s;
}
afterEach(async () => {
  for (const s of open.splice(0)) await s.close().catch(() => undefined);
});

describe('Store on PostgreSQL', () => {
  it('shows the URL without its password', async () => {
    const db = await freshDatabase();
    const a = await shared(db.url);
    expect(new URL(db.url).password).not.toBe('');
    expect(a.file).not.toContain(new URL(db.url).password);
    expect(a.file).toContain(':***@');
  });

  it('a write acknowledged by one process is read by another on its next sync', async () => {
    const db = await freshDatabase();
    const a = await shared(db.url);
    const b = await shared(db.url);
    await a.transact((tx) => tx.put('users', { id: 'usr_one', name: 'One', email: 'one@example.com' }));
    expect(b.get('users', 'usr_one')).toBeUndefined();
    await b.sync();
    expect(b.get('users', 'usr_one')).toEqual({ id: 'usr_one', name: 'One', email: 'one@example.com' });
  });

  it('loses no update when two processes write the same record at once', async () => {
    const db = await freshDatabase();
    const a = await shared(db.url);
    const b = await shared(db.url);
    await a.transact((tx) => tx.put('settings', { id: 'counter', value: 0 }));
    await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        (i % 2 ? a : b).transact((tx) => {
          const n = tx.get('settings', 'counter')!.value as number;
          tx.put('settings', { id: 'counter', value: n + 1 });
        }),
      ),
    );
    await a.sync();
    await b.sync();
    expect(a.get('settings', 'counter')!.value).toBe(120);
    expect(b.get('settings', 'counter')!.value).toBe(120);
  });

  it('a transaction that throws writes nothing, and the others of its batch still commit', async () => {
    const db = await freshDatabase();
    const a = await shared(db.url);
    const results = await Promise.allSettled([
      a.transact((tx) => tx.put('settings', { id: 'kept', value: 1 })),
      a.transact((tx) => {
        tx.put('settings', { id: 'dropped', value: 1 });
        throw new Error('no');
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    expect(a.get('settings', 'dropped')).toBeUndefined();
    const c = await shared(db.url);
    expect(c.get('settings', 'kept')?.value).toBe(1);
    expect(c.get('settings', 'dropped')).toBeUndefined();
  });

  it('a bulk load on one process replaces the data for every process', async () => {
    const db = await freshDatabase();
    const a = await shared(db.url);
    const b = await shared(db.url);
    await b.transact((tx) => tx.put('users', { id: 'usr_old', name: 'Old', email: 'old@example.com' }));
    await a.bulk((tx) => {
      tx.delete('users', 'usr_old');
      for (let i = 0; i < 1500; i++) tx.put('users', { id: `usr_${i}`, name: `N${i}`, email: `n${i}@example.com` });
    });
    await b.sync();
    expect(b.count('users')).toBe(1500);
    expect(b.get('users', 'usr_old')).toBeUndefined();
    // A write on B after the reload lands on top of the new data, for both.
    await b.transact((tx) => tx.delete('users', 'usr_7'));
    await a.sync();
    expect(a.count('users')).toBe(1499);
  });

  it('keeps everything across a restart of every process (base plus journal)', async () => {
    const db = await freshDatabase();
    const a = await shared(db.url);
    await a.bulk((tx) => {
      for (let i = 0; i < 1200; i++) tx.put('users', { id: `usr_${i}`, name: `N${i}`, email: `n${i}@example.com` });
    });
    await a.transact((tx) => tx.put('users', { id: 'usr_after', name: 'After', email: 'a@example.com' }));
    await a.compact();
    await a.transact((tx) => tx.delete('users', 'usr_3'));
    await a.close();
    const again = await shared(db.url);
    expect(again.count('users')).toBe(1200);
    expect(again.get('users', 'usr_after')?.name).toBe('After');
    expect(again.get('users', 'usr_3')).toBeUndefined();
  });

  it('records its migrations and refuses a schema newer than it knows', async () => {
    const db = await freshDatabase();
    await (await shared(db.url)).close();
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      const rows = await sql<Array<{ version: number }>>`select version from wcm_migrations order by version`;
      expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
      await sql`insert into wcm_migrations (version, name) values (${9999}, 'from the future')`;
    } finally {
      await sql.end();
    }
    const err = await Store.openShared(db.url).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchemaTooNewError);
    expect((err as Error).message).toMatch(/version 9999, newer than this wcm knows/);
  });

  it('makes a fresh schema in one query of its statements, and checks a current one in one more', async () => {
    const db = await freshDatabase();
    const sent: string[] = [];
    const sql = postgres(db.url, { max: 1, onnotice: () => {}, debug: (_c, query) => sent.push(query) });
    try {
      await sql`select 1`; // connected (and the driver's own queries on connecting sent)
      sent.length = 0;
      expect(await migrate(sql)).toEqual(MIGRATIONS.map((m) => m.version));
      // begin, the lock with the versions, every step's statements, commit: not one round trip per statement.
      expect(sent).toHaveLength(4);
      expect(sent[2]).toContain('create table wcm_records');
      const tables = await sql<Array<{ n: number }>>`
        select count(*)::int as n from pg_tables where schemaname = 'public' and tablename like 'wcm\_%'`;
      expect(tables[0].n).toBe(14);
      sent.length = 0;
      expect(await migrate(sql)).toEqual([]);
      expect(sent).toHaveLength(3);
    } finally {
      await sql.end();
    }
  });

  it('says the database is unavailable, without the password, when nothing listens', async () => {
    const err = await Store.openShared('postgres://wcm:s3cret-pw@127.0.0.1:1/wcm').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as Error).message).toMatch(/ECONNREFUSED/);
    expect((err as Error).message).not.toContain('s3cret-pw');
  });
});
