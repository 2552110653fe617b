import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnServe } from '../support/cli.js';
import { DEMO, demo, tempDir } from '../support/server.js';

let dir: string;
let cleanup: () => void;
const procs: Array<{ kill(sig?: NodeJS.Signals): boolean }> = [];
beforeEach(() => {
  ({ dir, cleanup } = tempDir('wcm-crash-'));
});
afterEach(() => {
  for (const p of procs.splice(0)) p.kill('SIGKILL');
  cleanup();
});

async function serve(args: string[]) {
  const s = await spawnServe(args, { cwd: dir, env: { WCM_CONFIG_DIR: path.join(dir, 'config') } });
  procs.push(s.proc);
  return s;
}

async function allTitles(url: string): Promise<string[]> {
  const titles: string[] = [];
  let cursor: string | null = null;
  do {
    const res: Response = await fetch(
      `${url}/workspaces/${demo.ws1}/lists?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      {
        headers: { authorization: `Bearer ${demo.owner}` },
      },
    );
    expect(res.status).toBe(200);
    const page = (await res.json()) as { data: Array<{ title: string }>; meta: { next_cursor: string | null } };
    titles.push(...page.data.map((l) => l.title));
    cursor = page.meta.next_cursor;
  } while (cursor);
  return titles;
}

/**
 * Concurrent writers hammer createListing; SIGKILL lands while requests are in flight. Returns
 * the titles whose 201 arrived before the kill.
 */
async function burstAndKill(
  url: string,
  proc: { kill(sig: NodeJS.Signals): boolean },
  round: number,
): Promise<{ acked: string[]; failed: number }> {
  const acked: string[] = [];
  let failed = 0;
  let killed = false;
  // Each writer keeps writing until the dead server fails one of its requests, so the burst runs
  // right up to the kill (stopping when the signal is merely sent would let every in-flight request
  // finish first on a slow machine, and the kill would land between writes).
  const writer = async (w: number) => {
    for (let i = 0, dead = false; !dead; i++) {
      const title = `r${round}-w${w}-${i}`;
      try {
        const res = await fetch(`${url}/workspaces/${demo.ws1}/lists`, {
          method: 'POST',
          headers: { authorization: `Bearer ${demo.owner}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title, template_slug: 'faq', items: [{ title: 'Q', description: 'x'.repeat(200) }] }),
        });
        if (res.status === 201) {
          await res.json();
          acked.push(title);
        }
      } catch {
        failed++; // the connection died with the server: not acknowledged
        if (killed) dead = true;
      }
    }
  };
  const writers = Array.from({ length: 12 }, (_, w) => writer(w));
  // Kill once a good number of writes went through, in the middle of the stream.
  while (acked.length < 120) await new Promise((r) => setTimeout(r, 5));
  proc.kill('SIGKILL');
  killed = true;
  // A 201 read after the kill was still sent by the server before it died, so after its fsync.
  await Promise.all(writers);
  return { acked, failed };
}

describe('kill -9', () => {
  it('every listing whose 201 was received survives SIGKILL during a write burst, twice over', async () => {
    const data = path.join(dir, 'store.json');
    const acked: string[] = [];
    let { url, proc } = await serve(['--data', data, '--seed', DEMO]);
    for (let round = 1; round <= 2; round++) {
      const r = await burstAndKill(url, proc, round);
      acked.push(...r.acked);
      const result = await proc;
      expect(result.signal).toBe('SIGKILL');
      expect(r.failed).toBeGreaterThan(0); // requests really were in flight when it died
      // Restart on the same file: the stale lock is taken over, the journal recovered.
      ({ url, proc } = await serve(['--data', data]));
      const titles = await allTitles(url);
      const present = new Set(titles);
      const missing = acked.filter((t) => !present.has(t));
      expect(missing).toEqual([]);
      expect(new Set(titles).size).toBe(titles.length);
      expect(present.has('Opening hours')).toBe(true);
    }
    proc.kill('SIGTERM');
    expect((await proc).exitCode).toBe(0);
  });
});
