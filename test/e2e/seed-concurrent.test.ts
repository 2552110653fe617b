// Two `wcm serve --store postgres://… --seed` processes started at once on an empty schema: one
// seeds, the other finds the data there and starts normally; neither fails on the other's records.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnServe } from '../support/cli.js';
import { freshDatabase, type TestDatabase } from '../support/postgres.js';
import { demo, DEMO } from '../support/server.js';

const running: Array<Awaited<ReturnType<typeof spawnServe>>> = [];
let db: TestDatabase | undefined;
afterAll(async () => {
  for (const s of running.splice(0)) {
    s.proc.kill('SIGTERM');
    await s.proc;
  }
  await db?.drop();
});

/** Waits until `lines` holds a line matching `re`, and returns it. */
async function lineOf(lines: string[], re: RegExp, ms = 60_000): Promise<string> {
  const started = Date.now();
  for (;;) {
    const line = lines.find((l) => re.test(l));
    if (line !== undefined) return line;
    if (Date.now() - started > ms) throw new Error(`no line matching ${re}: ${lines.join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('two servers seeding one empty PostgreSQL schema at once', () => {
  it(
    'both come up; one seeds, the other says the store already holds data; the data is there once',
    { timeout: 120_000 },
    async () => {
      db = await freshDatabase();
      const url = `${db.url}${db.url.includes('?') ? '&' : '?'}schema=seed_race`;
      const start = () =>
        spawnServe(['--store', url, '--seed', DEMO], {
          env: { WCM_CONFIG_DIR: mkdtempSync(path.join(tmpdir(), 'wcm-seed-race-cfg-')) },
        });
      const both = await Promise.all([start(), start()]);
      running.push(...both);
      const outcomes = await Promise.all(
        both.map((s) => lineOf(s.lines, /^(seeded from |the store already holds data, so --seed was not applied)/)),
      );
      expect(outcomes.filter((l) => l.startsWith('seeded from '))).toHaveLength(1);
      expect(outcomes.filter((l) => l.startsWith('the store already holds data'))).toHaveLength(1);
      // Each answers the fixture's owner token with the same records.
      const bodies = await Promise.all(
        both.map(async (s) => {
          const res = await fetch(`${s.url}/workspaces/${demo.ws1}/lists?limit=100`, {
            headers: { Authorization: `Bearer ${demo.owner}` },
          });
          expect(res.status).toBe(200);
          return (await res.json()) as { data: Array<{ id: string }> };
        }),
      );
      expect(bodies[0].data.length).toBeGreaterThan(0);
      expect(bodies[1].data.map((l) => l.id)).toEqual(bodies[0].data.map((l) => l.id));
      for (const s of both) expect(s.proc.exitCode).toBeNull();
    },
  );
});
