// The control plane's admin token and clock on the store's interface, on both engines: servers
// starting together keep one admin token (created once, the others read it), and a clock moved
// through one engine is the time of every transaction of the others on the same store.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MovableClock } from '../../src/server/emulator/clock.js';
import { adminToken } from '../../src/server/emulator/control.js';
import type { StoreEngine } from '../../src/store/engine/interface.js';
import { JsonEngine } from '../../src/store/json/engine.js';
import { PostgresEngine } from '../../src/store/postgres/engine.js';
import { freshDatabase, type TestDatabase } from '../support/postgres.js';
import { tempDir } from '../support/server.js';
import { systemClock } from '../../src/server/context.js';

let db: TestDatabase;
const opened: StoreEngine[] = [];
const dirs: Array<{ cleanup(): void }> = [];
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  for (const e of opened.splice(0)) await e.close().catch(() => undefined);
  for (const d of dirs.splice(0)) d.cleanup();
  await db?.drop();
});

/** Two handles on one fresh store: two engines on one schema (PostgreSQL), one engine twice (a data file takes one process). */
const stores: Array<[string, () => Promise<[StoreEngine, StoreEngine]>]> = [
  [
    'json',
    async () => {
      const dir = tempDir();
      dirs.push(dir);
      const e = await JsonEngine.open(path.join(dir.dir, 'store.json'));
      opened.push(e);
      return [e, e];
    },
  ],
  [
    'postgres',
    async () => {
      const url = `${db.url}?schema=t_${randomBytes(6).toString('hex')}`;
      const a = await PostgresEngine.open(url, { max: 2 });
      const b = await PostgresEngine.open(url, { max: 2 });
      opened.push(a, b);
      return [a, b];
    },
  ],
];

describe.each(stores)('on %s', (name, both) => {
  it('two starts at once keep one admin token: one generates it, the other reads it; a restart reads it', async () => {
    const [a, b] = await both();
    const made = await Promise.all([adminToken(a, {}), adminToken(b, {})]);
    expect(made[0].token).toMatch(/^wcm_admin_[A-Za-z0-9]{32}$/);
    expect(made[1].token).toBe(made[0].token);
    expect(made.map((m) => m.source).sort()).toEqual(['generated', 'stored']);
    expect(await adminToken(b, {})).toEqual({ token: made[0].token, source: 'stored' });
    // WCM_ADMIN_TOKEN wins, and is not written.
    expect(await adminToken(a, { WCM_ADMIN_TOKEN: 'from-env' })).toEqual({ token: 'from-env', source: 'env' });
    expect((await b.read((tx) => tx.get('settings', 'emulator.admin_token')))?.value).toBe(made[0].token);
  });

  it("a clock moved through one handle is every transaction's time on the other; clear brings both back", async () => {
    const [a, b] = await both();
    const mover = new MovableClock(systemClock);
    await mover.attach(a);
    const other = new MovableClock(systemClock);
    await other.attach(b);
    await mover.setOffset(7200);
    expect(Math.abs(mover.nowMs() - Date.now() - 7_200_000)).toBeLessThan(1000);
    const seen = await b.read((tx) => tx.now());
    expect(Math.abs(seen - Date.now() - 7_200_000)).toBeLessThan(5000);
    // The other's own state reads the store (and its synchronous clock follows).
    expect((await other.state()).offset_seconds).toBe(7200);
    expect(Math.abs(other.nowMs() - Date.now() - 7_200_000)).toBeLessThan(1000);
    await mover.reset();
    expect(Math.abs((await b.read((tx) => tx.now())) - Date.now())).toBeLessThan(5000);
    expect((await other.state()).offset_seconds).toBe(0);
  });

  it.runIf(name === 'postgres')(
    "on PostgreSQL another process's synchronous clock follows a move within about a second, with no state read",
    async () => {
      const [a, b] = await both();
      const mover = new MovableClock(systemClock);
      await mover.attach(a);
      const other = new MovableClock(systemClock);
      await other.attach(b);
      await mover.setOffset(3600);
      const until = Date.now() + 5000;
      while (Math.abs(other.nowMs() - Date.now() - 3_600_000) > 1000 && Date.now() < until)
        await new Promise((r) => setTimeout(r, 100));
      expect(Math.abs(other.nowMs() - Date.now() - 3_600_000)).toBeLessThan(1000);
      await mover.reset();
    },
  );
});
