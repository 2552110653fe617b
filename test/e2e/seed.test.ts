import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnServe, wcm } from '../support/cli.js';
import { DEMO, ROOT, demo, tempDir } from '../support/server.js';

const CI_SEED = path.join(ROOT, 'fixtures/ci-seed.steps.json');
const CI_PAGES = path.join(ROOT, 'fixtures/ci-pages.steps.json');

let tmp: ReturnType<typeof tempDir>;
let server: Awaited<ReturnType<typeof spawnServe>> | undefined;
beforeEach(() => {
  tmp = tempDir('wcm-seed-e2e-');
});
afterEach(async () => {
  if (server) {
    server.proc.kill('SIGTERM');
    await server.proc;
    server = undefined;
  }
  tmp.cleanup();
});

describe('wcm seed (the built binary against `wcm serve`)', () => {
  it("seeds a fresh local server through the API only, as the README's CI example does", async () => {
    const cfg = { WCM_CONFIG_DIR: tmp.dir };
    server = await spawnServe(['--data', path.join(tmp.dir, 'store.json')], { env: cfg });
    // The fresh server saved profile `local`; `wcm seed` finds it with no other set-up.
    const out = path.join(tmp.dir, 'seeded.json');
    const r = await wcm(['seed', CI_SEED, '--output', out], { env: cfg });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    expect(doc.ok).toBe(true);
    expect(doc.target.base_url).toBe(server.url);
    expect(Object.keys(doc.steps)).toEqual(['me', 'faq', 'menu', 'hours', 'links', 'readback']);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t').slice(0, 3).join(' ')),
    ).toEqual([
      'me getMe 200',
      'faq createListing 201',
      'menu createListing 201',
      'hours createListing 201',
      'links createListing 201',
      'readback listListings 200',
    ]);

    // Read back through the API with another command: exactly the four listings the file made.
    const ls = await wcm(['lists', 'ls', '--json'], { env: cfg });
    expect(ls.exitCode).toBe(0);
    const listed = JSON.parse(ls.stdout) as Array<{ id: string; title: string; dashboard_url: string }>;
    expect(listed.map((l) => [l.id, l.title])).toEqual([
      [doc.steps.links.data.id, 'Start here'],
      [doc.steps.hours.data.id, 'Opening hours'],
      [doc.steps.menu.data.id, 'Acme menu'],
      [doc.steps.faq.data.id, 'Acme FAQ'],
    ]);
    // Step references carried the earlier results into the later listing.
    expect(doc.steps.links.data.items).toEqual([
      { title: 'Acme FAQ', description: listed[3].dashboard_url },
      { title: 'Acme menu', description: listed[2].dashboard_url },
      { title: 'Hours', description: 'Monday to Friday, 8 to 18' },
    ]);
    expect(doc.steps.readback.data.map((l: { id: string }) => l.id)).toEqual(listed.map((l) => l.id));
  });

  it('runs the same file against the /api/v1 alias, with environment values replacing the defaults', async () => {
    server = await spawnServe(['--data', path.join(tmp.dir, 'store.json'), '--seed', DEMO], {
      env: { WCM_CONFIG_DIR: tmp.dir },
    });
    const env = {
      WCM_CONFIG_DIR: tmp.dir,
      WCM_BASE_URL: server.url.replace(/\/v1$/, '/api/v1'),
      WCM_TOKEN: demo.ciWriter,
      WCM_WORKSPACE: demo.ws3,
      SEED_BRAND: 'Bolt',
      SEED_HOURS: 'Every day, 7 to 22',
    };
    const r = await wcm(['seed', '--json', CI_SEED], { env });
    expect(r.exitCode).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.target.base_url).toMatch(/\/api\/v1$/);
    expect(doc.steps.faq.data.title).toBe('Bolt FAQ');
    expect(doc.steps.hours.data.items).toEqual([{ title: 'Weekdays', description: 'Every day, 7 to 22' }]);
    const ls = await wcm(['lists', 'ls', '--json', '--limit', '100'], { env });
    const titles = (JSON.parse(ls.stdout) as Array<{ title: string }>).map((l) => l.title);
    expect(titles.slice(0, 4)).toEqual(['Start here', 'Opening hours', 'Bolt menu', 'Bolt FAQ']);
  });

  it('validates both sample files together with --dry-run: one namespace, nothing sent', async () => {
    const env = { WCM_CONFIG_DIR: tmp.dir, WCM_BASE_URL: 'http://127.0.0.1:9/v1', WCM_WORKSPACE: demo.ws1 };
    const r = await wcm(['seed', CI_SEED, CI_PAGES, '--dry-run'], { env });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim().split('\n').slice(-2)).toEqual([
      `home\tupdatePage\tPATCH\t/workspaces/${demo.ws1}/pages/${demo.pageHoliday}`,
      `home_check\tgetPage\tGET\t/workspaces/${demo.ws1}/pages/\${home:data.id}`,
    ]);
    // Without the first file, the second one's reference to `faq` has nothing to point at.
    const alone = await wcm(['seed', CI_PAGES, '--dry-run'], { env });
    expect(alone.exitCode).toBe(2);
    expect(alone.stderr).toContain(
      '› home › $.steps[0].body.bio: `${faq:data.dashboard_url}` refers to step `faq`, which is not in this run.',
    );
  });

  it('stops between steps on SIGTERM (a cancelled CI job): the step in flight finishes, --output lists what was created', async () => {
    server = await spawnServe(['--data', path.join(tmp.dir, 'store.json'), '--seed', DEMO], {
      env: { WCM_CONFIG_DIR: tmp.dir },
    });
    const env = { WCM_CONFIG_DIR: tmp.dir, WCM_BASE_URL: server.url, WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws2 };
    const count = async () => {
      let n = 0;
      let cursor: string | null = '';
      do {
        const res = await fetch(
          `${server!.url}/workspaces/${demo.ws2}/lists?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
          { headers: { authorization: `Bearer ${demo.owner}` } },
        );
        const page = (await res.json()) as { data: unknown[]; meta: { next_cursor: string | null } };
        n += page.data.length;
        cursor = page.meta.next_cursor;
      } while (cursor);
      return n;
    };
    const baseline = await count();
    const total = 1000;
    const long = path.join(tmp.dir, 'long.steps.json');
    writeFileSync(
      long,
      JSON.stringify({
        version: 1,
        steps: Array.from({ length: total }, (_, i) => ({
          name: `l${i}`,
          operation: 'createListing',
          body: { title: `L${i}`, template_slug: 'faq' },
        })),
      }),
    );
    const out = path.join(tmp.dir, 'out.json');
    const proc = wcm(['seed', long, '--output', out], { env, timeout: 60_000 });
    while ((await count()) < baseline + 3) await new Promise((r) => setTimeout(r, 50));
    proc.kill('SIGTERM');
    const r = await proc;
    expect(r.exitCode).toBe(143);
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    const ran = Object.keys(doc.steps);
    expect(doc).toMatchObject({ ok: false, interrupted: true });
    expect(ran.length).toBeGreaterThanOrEqual(3);
    expect(ran.length).toBeLessThan(total);
    expect(Object.values(doc.steps).every((st) => (st as { status: number }).status === 201)).toBe(true);
    expect(doc.not_run).toHaveLength(total - ran.length);
    // Nothing half-done: every listing the server holds now is one --output reports.
    expect(await count()).toBe(baseline + ran.length);
    expect(r.stderr).toContain(`Interrupted by SIGTERM after ${ran.length} of ${total} steps`);
  });
});
