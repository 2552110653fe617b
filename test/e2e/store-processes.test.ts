// Two real `wcm serve --store postgres://…` processes on one schema, each test one behaviour the
// store promises across processes (docs/sandbox.md): what one acknowledges the other reads at once,
// a paused process holds up no other record, and a clock that is off on one host does not loosen a
// limit they share.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnServe } from '../support/cli.js';
import { delayProxy } from '../support/delay-proxy.js';
import { clusterUrl, freshSchema } from '../support/postgres.js';
import { DEMO, demo } from '../support/server.js';

type Served = Awaited<ReturnType<typeof spawnServe>> & { origin: string };
const running: Served[] = [];
const cleanups: Array<() => Promise<void>> = [];
const SKEW = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), '../support/clock-skew.mjs')).href;

async function serve(url: string, args: string[] = [], env: Record<string, string> = {}): Promise<Served> {
  const configDir = mkdtempSync(path.join(tmpdir(), 'wcm-store-processes-'));
  // spawnServe rejects as soon as the process exits, whatever else it is waiting for.
  const s = await spawnServe(['--store', url, ...args], { env: { WCM_CONFIG_DIR: configDir, ...env } });
  const served = Object.assign(s, { origin: new URL(s.url).origin });
  running.push(served);
  return served;
}
afterEach(async () => {
  for (const s of running.splice(0)) {
    s.proc.kill('SIGCONT');
    s.proc.kill('SIGTERM');
    await s.proc;
  }
  for (const c of cleanups.splice(0)) await c();
});

/** A seeded schema of its own: one process seeds it, then stops. */
async function seeded(): Promise<string> {
  const { url } = await freshSchema();
  const seeder = await serve(url, ['--seed', DEMO]);
  seeder.proc.kill('SIGTERM');
  await seeder.proc;
  running.splice(running.indexOf(seeder), 1);
  return url;
}

const auth = { Authorization: `Bearer ${demo.owner}`, 'Content-Type': 'application/json' };
const PAGES = [
  demo.pageAcme,
  demo.pageHoliday,
  '5a2e8f14-7b3c-4d6a-9e1f-0c8b7a6d5e04',
  'c6d4b2a0-8e9f-4a1b-8c3d-2e1f0a9b8c05',
];
const pageUrl = (s: Served, page: string) => `${s.url}/workspaces/${demo.ws1}/pages/${page}`;

async function patchPage(s: Served, page: string, name: string): Promise<number> {
  const res = await fetch(pageUrl(s, page), { method: 'PATCH', headers: auth, body: JSON.stringify({ name }) });
  await res.arrayBuffer();
  return res.status;
}
async function pageName(s: Served, page: string): Promise<string | undefined> {
  const res = await fetch(pageUrl(s, page), { headers: auth });
  return res.status === 200
    ? ((await res.json()) as { data: { name: string } }).data.name
    : (await res.text(), undefined);
}
/** The new list's id (undefined unless 201) and the status. */
async function createList(s: Served, title: string): Promise<{ status: number; id?: string }> {
  const res = await fetch(`${s.url}/workspaces/${demo.ws1}/lists`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ title, template_slug: 'faq', items: [{ title: 'Q', description: 'A' }] }),
  });
  if (res.status !== 201) return (await res.arrayBuffer(), { status: res.status });
  return { status: 201, id: ((await res.json()) as { data: { id: string } }).data.id };
}
async function listTitle(s: Served, id: string): Promise<string | undefined> {
  const res = await fetch(`${s.url}/workspaces/${demo.ws1}/lists/${id}`, { headers: auth });
  return res.status === 200
    ? ((await res.json()) as { data: { title: string } }).data.title
    : (await res.text(), undefined);
}

describe('two wcm serve processes on one PostgreSQL schema', () => {
  it('with 1-10 ms added to every database packet and writers on both, a write A acknowledged is read on B at once: 0 stale of 60+', async () => {
    const server = new URL(clusterUrl());
    const proxy = await delayProxy({ host: server.hostname, port: Number(server.port || 5432) }, 1, 10);
    cleanups.push(() => proxy.close());
    const direct = new URL(await seeded());
    direct.hostname = '127.0.0.1';
    direct.port = String(proxy.port);
    // The proxy forwards each connection as it is (no pooling): prepared statements are safe
    // through it, so the URL turns them on as a direct connection would have them.
    direct.searchParams.set('prepare', 'true');
    const [a, b] = await Promise.all([serve(direct.href), serve(direct.href)]);
    // Load beside the checks: both processes keep creating lists of their own.
    let busy = true;
    const noise = [a, b].map(async (s, n) => {
      for (let i = 0; busy; i++) await createList(s, `noise ${n}-${i}`);
    });
    const checks: Array<{ what: string; status: number; seen: string | undefined; want: string }> = [];
    try {
      await Promise.all(
        PAGES.slice(0, 3).map(async (page, w) => {
          for (let i = 0; i < 10; i++) {
            const name = `page ${w} round ${i}`;
            const status = await patchPage(a, page, name);
            // Acknowledged by A: B's next read must see it.
            checks.push({ what: `PATCH ${page}`, status, seen: await pageName(b, page), want: name });
            const title = `list ${w} round ${i}`;
            const { status: made, id } = await createList(a, title);
            checks.push({ what: `list ${id}`, status: made, seen: id && (await listTitle(b, id)), want: title });
          }
        }),
      );
    } finally {
      busy = false;
      await Promise.all(noise);
    }
    expect(checks.filter((c) => c.status !== 200 && c.status !== 201)).toEqual([]);
    expect(checks.length).toBeGreaterThanOrEqual(60);
    expect(checks.filter((c) => c.seen !== c.want)).toEqual([]);
    // Every request waits 1-10 ms on each of its database packets: on a busy machine (the full
    // suite beside it) the 60 checks and their writes took more than 90 s.
  }, 240_000);

  it('A stopped (SIGSTOP) in the middle of its writes holds up none of B’s writes to other records; resumed, A serves again', async () => {
    const url = await seeded();
    const [a, b] = await Promise.all([serve(url), serve(url)]);
    // Four writers keep A's own page and lists in flight, so A stops holding transactions open.
    let busy = true;
    let doneOnA = 0;
    const onA = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; busy; i++) {
        const status = await (
          w % 2 ? patchPage(a, demo.pageAcme, `A ${w}-${i}`) : createList(a, `A ${w}-${i}`).then((r) => r.status)
        ).catch(() => 0);
        if (status === 0) return;
        if (status < 300) doneOnA++;
      }
    });
    for (let i = 0; i < 100 && doneOnA < 20; i++) await new Promise((r) => setTimeout(r, 20));
    expect(doneOnA).toBeGreaterThanOrEqual(20);
    expect(a.proc.kill('SIGSTOP')).toBe(true);
    const stoppedAt = Date.now();
    const timings: Array<{ what: string; ms: number; status: number }> = [];
    try {
      for (let i = 0; Date.now() - stoppedAt < 3000; i++) {
        const t = Date.now();
        const status = i % 2 ? await patchPage(b, demo.pageHoliday, `B ${i}`) : (await createList(b, `B ${i}`)).status;
        timings.push({ what: i % 2 ? 'PATCH the other page' : 'create a list', ms: Date.now() - t, status });
      }
    } finally {
      a.proc.kill('SIGCONT');
      busy = false;
    }
    await Promise.all(onA);
    expect(timings.filter((t) => t.status !== 200 && t.status !== 201)).toEqual([]);
    expect(timings.filter((t) => t.ms >= 2000)).toEqual([]);
    expect(timings.length).toBeGreaterThanOrEqual(5);
    // Resumed: A answers a write, and what it wrote B reads.
    const t = Date.now();
    expect(await patchPage(a, demo.pageAcme, 'after SIGCONT')).toBe(200);
    expect(Date.now() - t).toBeLessThan(2000);
    expect(await pageName(b, demo.pageAcme)).toBe('after SIGCONT');
    const made = await createList(a, 'made on A after SIGCONT');
    expect(made.status).toBe(201);
    expect(await listTitle(b, made.id!)).toBe('made on A after SIGCONT');
  }, 60_000);

  it('with B’s clock 3 s ahead, `--rate-limit 60` on both holds for their total: of 200 public requests alternating A and B, at most 60 (and what a minute refills in the time taken) are accepted', async () => {
    // The preload does move this process's clock: Date, new Date() and performance.timeOrigin read 3 s ahead.
    const skewed = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        SKEW,
        '-e',
        'console.log(JSON.stringify([Date.now(), new Date().getTime(), performance.timeOrigin - Date.now()]))',
      ],
      { env: { ...process.env, WCM_TEST_CLOCK_SKEW_MS: '3000' } },
    );
    const [now, constructed] = JSON.parse(skewed.stdout) as number[];
    expect(now - Date.now()).toBeGreaterThan(2500);
    expect(constructed - Date.now()).toBeGreaterThan(2500);

    const url = await seeded();
    const [a, b] = await Promise.all([
      serve(url, ['--rate-limit', '60']),
      serve(url, ['--rate-limit', '60'], { NODE_OPTIONS: `--import ${SKEW}`, WCM_TEST_CLOCK_SKEW_MS: '3000' }),
    ]);
    const statuses: Array<{ on: 'A' | 'B'; status: number }> = [];
    const started = Date.now();
    // Four callers from the one address, each alternating between the processes.
    await Promise.all(
      Array.from({ length: 4 }, async (_, c) => {
        for (let i = 0; i < 50; i++) {
          const on = (i + c) % 2 ? 'B' : 'A';
          const res = await fetch(`${(on === 'A' ? a : b).url}/public/agents/${demo.agent1}/analytics-events/opened`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'Idempotency-Key': `skew-limit-${c}-${i}-0000` },
            body: JSON.stringify({}),
          });
          await res.arrayBuffer();
          statuses.push({ on, status: res.status });
        }
      }),
    );
    const elapsedS = (Date.now() - started) / 1000;
    expect(statuses).toHaveLength(200);
    expect(statuses.filter((s) => s.status !== 201 && s.status !== 429)).toEqual([]);
    const accepted = statuses.filter((s) => s.status === 201).length;
    // A token bucket: a burst of 60, then one more a second; B's clock being ahead adds nothing.
    expect(accepted).toBeGreaterThanOrEqual(60);
    expect(accepted).toBeLessThanOrEqual(60 + Math.floor(elapsedS));
    // Both processes refused some: each counts what the other spent.
    expect(statuses.filter((s) => s.on === 'A' && s.status === 429).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s.on === 'B' && s.status === 429).length).toBeGreaterThan(0);
  }, 60_000);
});
