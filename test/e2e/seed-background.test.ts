import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServe, wcm } from '../support/cli.js';
import { generateThreads } from '../support/generate-threads.mjs';
import { DEMO, demo, tempDir } from '../support/server.js';

// `wcm serve --seed` of a big fixture listens once the seed is in memory and writes its snapshot
// after (docs/server.md, bulk loads): a SIGKILL while that snapshot is written leaves the store as it
// was before the seed, never part of it; once `seed saved` is printed the whole seed, and every
// write acknowledged after it, survives a SIGKILL.

// Big enough that its snapshot (about 25 MB) takes a while to write after the server listens.
const THREADS = 20_000;
const DEMO_THREADS = (JSON.parse(readFileSync(DEMO, 'utf8')) as { threads: unknown[] }).threads.length;
const SLOW = { timeout: 300_000 };
let d: ReturnType<typeof tempDir>;
let fixture: string;
let env: Record<string, string>;
let serve: Awaited<ReturnType<typeof spawnServe>> | undefined;

beforeAll(() => {
  d = tempDir('wcm-seed-bg-');
  env = { WCM_CONFIG_DIR: path.join(d.dir, 'config') };
  fixture = path.join(d.dir, 'threads.json');
  writeFileSync(fixture, JSON.stringify(generateThreads({ count: THREADS })));
}, SLOW.timeout);
afterAll(async () => {
  serve?.proc.kill('SIGKILL');
  await serve?.proc;
  d?.cleanup();
});

/** Waits (polling every 2 ms) until `cond` holds. */
async function until(cond: () => boolean, what: string, ms = SLOW.timeout): Promise<void> {
  const started = Date.now();
  while (!cond()) {
    if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function kill(): Promise<void> {
  serve!.proc.kill('SIGKILL');
  await serve!.proc;
  serve = undefined;
}

/** The store's records as `wcm local export` reads them from the files (no server). */
async function exported(
  data: string,
  name: string,
): Promise<{ threads?: unknown[]; listings?: Array<{ title: string }> }> {
  const out = path.join(d.dir, name);
  const r = await wcm(['local', 'export', '--data', data, out], { env, timeout: SLOW.timeout });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(readFileSync(out, 'utf8'));
}

describe('serve --seed writes the seed after it listens (the built binary)', () => {
  it(
    'a SIGKILL during the snapshot leaves the store as before; after `seed saved`, the seed and the writes after it survive one',
    SLOW,
    async () => {
      const dir = path.join(d.dir, 'store');
      mkdirSync(dir);
      const data = path.join(dir, 'store.json');
      const writing = () => readdirSync(dir).some((f) => f.startsWith('store.json.tmp-'));
      serve = await spawnServe(['--data', data, '--seed', DEMO, '--seed', fixture], { env });
      // Listening, and the seed's snapshot is still being written to its temp file.
      await until(writing, "the seed's snapshot temp file", 30_000);
      await kill();
      expect(writing()).toBe(true);
      expect(existsSync(data)).toBe(false);
      // The store opens cleanly: as before the seed, none of it.
      expect((await exported(data, 'killed.json')).threads ?? []).toHaveLength(0);

      // Still empty, so seeded again; a write acknowledged after `seed saved` is kept with it.
      serve = await spawnServe(['--data', data, '--seed', DEMO, '--seed', fixture], { env });
      await until(() => serve!.lines.includes(`seed saved to ${data}`), '`seed saved`');
      const res = await fetch(`${serve.url}/workspaces/${demo.ws1}/lists`, {
        method: 'POST',
        headers: { authorization: `Bearer ${demo.owner}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'After the seed', template_slug: 'faq' }),
      });
      expect(res.status).toBe(201);
      await kill();
      const after = await exported(data, 'saved.json');
      expect(after.threads).toHaveLength(THREADS + DEMO_THREADS);
      expect(after.listings?.map((l) => l.title)).toContain('After the seed');
    },
  );
});
