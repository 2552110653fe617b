// Load: 500 creates at once against the real binary give 500 distinct, complete records, and the
// store then survives export → import → export unchanged.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { spawnServe, wcm } from '../support/cli.js';
import { DEMO, demo, tempDir } from '../support/server.js';
import { listingFor } from './attack.js';

const N = 500;

describe('500 parallel createListing over real sockets (built binary)', () => {
  const tmp = tempDir('wcm-concurrency-');
  const data = path.join(tmp.dir, 'store.json');
  let server: Awaited<ReturnType<typeof spawnServe>>;
  beforeAll(async () => {
    server = await spawnServe(['--data', data, '--seed', DEMO]);
  });
  afterAll(async () => {
    server?.proc.kill('SIGTERM');
    await server?.proc;
    tmp.cleanup();
  });

  it('gives 500 distinct records, each complete, all listed', { timeout: 120_000 }, async () => {
    // One socket per request: the point is 500 connections in flight, not 500 queued on a few.
    const dispatcher = new Agent({ connections: N, pipelining: 1 });
    const titles = Array.from({ length: N }, (_, i) => `concurrent-${i}`);
    const answers = await Promise.all(
      titles.map(async (title) => {
        const r = await fetch(`${server.url}/workspaces/${demo.ws1}/lists`, {
          method: 'POST',
          headers: { authorization: `Bearer ${demo.owner}`, 'content-type': 'application/json' },
          body: JSON.stringify(listingFor(title)),
          // @ts-expect-error undici's fetch option
          dispatcher,
        });
        return { status: r.status, json: (await r.json()) as { data: { id: string; title: string; items: unknown } } };
      }),
    );
    await dispatcher.close();
    expect(answers.map((a) => a.status)).toEqual(Array(N).fill(201));
    const ids = new Set(answers.map((a) => a.json.data.id));
    expect(ids.size).toBe(N);
    for (const a of answers)
      expect({ title: a.json.data.title, items: a.json.data.items }).toEqual({
        title: a.json.data.title,
        items: listingFor(a.json.data.title).items,
      });

    // Every one of them is listed exactly once (keyset pages of 100).
    const listed: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const r = await fetch(`${server.url}/workspaces/${demo.ws1}/lists?limit=100${q}`, {
        headers: { authorization: `Bearer ${demo.owner}` },
      });
      const j = (await r.json()) as { data: Array<{ id: string }>; meta: { next_cursor: string | null } };
      listed.push(...j.data.map((d) => d.id));
      cursor = j.meta.next_cursor;
    } while (cursor);
    expect(new Set(listed).size).toBe(listed.length);
    for (const id of ids) expect(listed).toContain(id);
  });

  it('export (while serving) → import into a fresh data file → export is identical', { timeout: 60_000 }, async () => {
    const first = path.join(tmp.dir, 'first.json');
    const fresh = path.join(tmp.dir, 'fresh.json');
    const second = path.join(tmp.dir, 'second.json');
    const e1 = await wcm(['local', 'export', first, '--data', data]);
    expect(e1.exitCode, e1.stderr).toBe(0);
    const exported = JSON.parse(readFileSync(first, 'utf8'));
    expect(exported.listings.filter((l: { title: string }) => l.title.startsWith('concurrent-'))).toHaveLength(N);
    const imp = await wcm(['local', 'import', first, '--data', fresh]);
    expect(imp.exitCode, imp.stderr).toBe(0);
    const e2 = await wcm(['local', 'export', second, '--data', fresh]);
    expect(e2.exitCode, e2.stderr).toBe(0);
    expect(readFileSync(second, 'utf8')).toBe(readFileSync(first, 'utf8'));
  });
});
