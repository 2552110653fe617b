import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeIO, runInProcess } from '../support/cli.js';
import { demo, onPort, tempDir } from '../support/server.js';

let srv: Awaited<ReturnType<typeof onPort>>;
let tmp: ReturnType<typeof tempDir>;
beforeEach(async () => {
  srv = await onPort();
  tmp = tempDir('wcm-seed-');
});
afterEach(async () => {
  await srv.close();
  tmp.cleanup();
});

const env = (over: Record<string, string | undefined> = {}) => ({
  WCM_BASE_URL: srv.url,
  WCM_TOKEN: demo.owner,
  WCM_WORKSPACE: demo.ws1,
  WCM_CONFIG_DIR: tmp.dir,
  ...over,
});
const steps = (...s: unknown[]) => ({ version: 1, steps: s });
function file(name: string, doc: unknown): string {
  const p = path.join(tmp.dir, name);
  writeFileSync(p, typeof doc === 'string' ? doc : JSON.stringify(doc, null, 2));
  return p;
}
const seed = (args: string[], over: Record<string, string | undefined> = {}, io = fakeIO()) =>
  runInProcess(['seed', ...args], { env: env(over), io });

/** Reads the workspace's listings back through the API, newest first. */
async function listings(ws: string = demo.ws1): Promise<Array<{ id: string; title: string; dashboard_url: string }>> {
  const res = await fetch(`${srv.url}/workspaces/${ws}/lists?limit=100`, {
    headers: { authorization: `Bearer ${demo.owner}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Array<{ id: string; title: string; dashboard_url: string }> }).data;
}

const faq = {
  name: 'faq',
  operation: 'createListing',
  body: { title: 'Seeded FAQ', template_slug: 'faq', items: [{ title: 'Hours?', description: '8 to 6' }] },
};
const menu = { name: 'menu', operation: 'createListing', body: { title: 'Seeded menu', template_slug: 'menu' } };

describe('wcm seed against a real server', () => {
  it('runs several files in order; later steps (in another file) use ids the earlier ones created', async () => {
    const before = await listings();
    const a = file('a.steps.json', steps(faq, menu));
    const b = file(
      'b.steps.json',
      steps(
        {
          name: 'links',
          operation: 'createListing',
          body: {
            title: 'Links for ${faq:data.title}',
            template_slug: 'links',
            items: [
              { title: '${faq:data.id}', description: '${menu:data.title} at ${menu:data.dashboard_url}' },
              { title: '${faq:data.items.0.title}' },
            ],
          },
        },
        { name: 'readback', operation: 'listListings', params: { limit: '${env:SEED_LIMIT|3}' } },
      ),
    );
    const out = path.join(tmp.dir, 'out', 'seeded.json');
    const r = await seed([a, b, '--output', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);

    const doc = JSON.parse(readFileSync(out, 'utf8'));
    const ids = { faq: doc.steps.faq.data.id, menu: doc.steps.menu.data.id, links: doc.steps.links.data.id };
    const after = await listings();
    expect(after.length).toBe(before.length + 3);
    // Newest first: what the API reads back is what the steps created, with references filled in.
    expect(after.slice(0, 3).map((l) => [l.id, l.title])).toEqual([
      [ids.links, 'Links for Seeded FAQ'],
      [ids.menu, 'Seeded menu'],
      [ids.faq, 'Seeded FAQ'],
    ]);
    expect(doc.steps.links.data.items).toEqual([
      { title: ids.faq, description: `Seeded menu at ${after[1].dashboard_url}` },
      { title: 'Hours?' },
    ]);
    // The env default (3) reached the query; the read-back saw the three new listings.
    expect(doc.steps.readback.data.map((l: { id: string }) => l.id)).toEqual([ids.links, ids.menu, ids.faq]);
    // Piped stdout: one tab-separated row per step, nothing else.
    expect(r.stdout.trim().split('\n')).toEqual([
      `faq\tcreateListing\t201\t${ids.faq}`,
      `menu\tcreateListing\t201\t${ids.menu}`,
      `links\tcreateListing\t201\t${ids.links}`,
      'readback\tlistListings\t200\t3 items',
    ]);
  });

  it("writes --output with every step's operation, status, data and meta, keyed by step name", async () => {
    const out = path.join(tmp.dir, 'seeded.json');
    const r = await seed([file('a.json', steps({ name: 'me', operation: 'getMe' }, faq)), '--output', out]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    expect(Object.keys(doc)).toEqual(['version', 'ok', 'target', 'steps', 'not_run']);
    expect(doc.ok).toBe(true);
    expect(doc.target).toEqual({ base_url: srv.url, workspace: demo.ws1 });
    expect(Object.keys(doc.steps)).toEqual(['me', 'faq']);
    expect(doc.steps.me).toMatchObject({
      operation: 'getMe',
      status: 200,
      ok: true,
      data: { user: { id: 'usr_ada' } },
    });
    expect(doc.steps.faq).toMatchObject({
      file: path.join(tmp.dir, 'a.json'),
      operation: 'createListing',
      status: 201,
      ok: true,
      data: { title: 'Seeded FAQ', template_slug: 'faq' },
    });
    expect(doc.steps.faq.meta.request_id).toMatch(/^req_/);
    expect((await listings()).map((l) => l.id)).toContain(doc.steps.faq.data.id);
    expect(doc.not_run).toEqual([]);
  });

  it('prints the same document on stdout with --json', async () => {
    const r = await runInProcess(['seed', '--json', file('a.json', steps(faq))], { env: env() });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.ok).toBe(true);
    expect(doc.steps.faq.data.title).toBe('Seeded FAQ');
  });

  it('works the same against /v1 and the /api/v1 alias', async () => {
    const f = file(
      'a.json',
      steps(faq, {
        name: 'again',
        operation: 'createListing',
        body: { title: 'Copy of ${faq:data.id}', template_slug: 'faq' },
      }),
    );
    const before = (await listings()).length;
    for (const base of [srv.url, srv.url.replace(/\/v1$/, '/api/v1')]) {
      const out = path.join(tmp.dir, `out-${base.includes('/api/') ? 'alias' : 'canonical'}.json`);
      const r = await seed([f, '--output', out], { WCM_BASE_URL: base });
      expect(r.code).toBe(0);
      const doc = JSON.parse(readFileSync(out, 'utf8'));
      expect(doc.target.base_url).toBe(base);
      expect(doc.steps.again.data.title).toBe(`Copy of ${doc.steps.faq.data.id}`);
    }
    expect((await listings()).length).toBe(before + 4);
  });

  it('--dry-run resolves and validates, prints the plan and sends nothing', async () => {
    const before = (await listings()).length;
    const f = file(
      'a.json',
      steps(
        faq,
        { name: 'p', operation: 'getPage', params: { page: '${env:HOME_PAGE_ID|' + demo.pageHoliday + '}' } },
        { name: 'all', operation: 'listListings', params: { limit: 5 } },
      ),
    );
    const r = await seed([f, '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([
      `faq\tcreateListing\tPOST\t/workspaces/${demo.ws1}/lists`,
      `p\tgetPage\tGET\t/workspaces/${demo.ws1}/pages/${demo.pageHoliday}`,
      `all\tlistListings\tGET\t/workspaces/${demo.ws1}/lists?limit=5`,
    ]);
    expect((await listings()).length).toBe(before);
    // Not even a connection: a base URL where nothing listens and no token are fine for a dry run.
    const offline = await seed([f, '--dry-run', '--json'], {
      WCM_BASE_URL: 'http://127.0.0.1:9/v1',
      WCM_TOKEN: undefined,
    });
    expect(offline.code).toBe(0);
    const plan = JSON.parse(offline.stdout).plan;
    expect(plan.map((p: { step: string; method: string }) => `${p.method} ${p.step}`)).toEqual([
      'POST faq',
      'GET p',
      'GET all',
    ]);
    expect(plan[0].body).toEqual(faq.body);
  });

  it('shows a step counter on a terminal (stderr) and keeps stdout for results', async () => {
    const io = fakeIO({ tty: true });
    const r = await seed([file('a.json', steps(faq, menu))], {}, io);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('[1/2] faq createListing ✓ 201');
    expect(r.stderr).toContain('[2/2] menu createListing ✓ 201');
    expect(r.stderr).toMatch(/✓ 2 steps from 1 file in \d+\.\d s \(2 created or changed\)\n$/);
    expect(r.stdout).toMatch(/STEP\s+OPERATION\s+STATUS\s+RESULT/);
    expect(r.stdout).not.toContain('[1/2]');
  });
});

describe('wcm seed: validation stops the run before any request', () => {
  // Each file starts with a valid step, so "nothing created" proves nothing at all was sent.
  const rows: Array<[string, Record<string, unknown>, string, Record<string, string>?]> = [
    ['bad file (not JSON)', { 'a.json': '{"version": 1, "steps": [' }, 'a.json › $: is not valid JSON'],
    [
      'bad file (wrong version)',
      { 'a.json': { version: 2, steps: [faq] } },
      'a.json › $.version: `version` must be 1; received 2.',
    ],
    [
      'bad file (unknown member)',
      { 'a.json': { ...steps(faq), setup: [] } },
      'a.json › $.setup: unknown member `setup`',
    ],
    [
      'unknown operation',
      { 'a.json': steps(faq, { name: 'x', operation: 'createListings' }) },
      'a.json › x › $.steps[1].operation: unknown operation `createListings`; did you mean `createListing`?',
    ],
    [
      'missing path parameter',
      { 'a.json': steps(faq, { name: 'p', operation: 'getPage' }) },
      'a.json › p › $.steps[1].params: missing path parameter `page` for getPage (GET /workspaces/{workspace}/pages/{page}).',
    ],
    [
      'body that fails the schema',
      {
        'a.json': steps(faq, {
          name: 'm',
          operation: 'createListing',
          body: { title: 'x'.repeat(256), template_slug: 'menu' },
        }),
      },
      'a.json › m › $.steps[1].body.title: Must be at most 255 characters.',
    ],
    [
      'query that fails the schema',
      { 'a.json': steps(faq, { name: 'all', operation: 'listListings', params: { limit: 0 } }) },
      'a.json › all › $.steps[1].params.limit: Must be at least 1.',
    ],
    [
      'unknown step reference',
      {
        'a.json': steps(faq, {
          name: 'm',
          operation: 'createListing',
          body: { title: '${menu:data.title}', template_slug: 'menu' },
        }),
      },
      'a.json › m › $.steps[1].body.title: `${menu:data.title}` refers to step `menu`, which is not in this run.',
    ],
    [
      'forward reference',
      { 'a.json': steps({ ...menu, body: { title: 'After ${faq:data.title}', template_slug: 'menu' } }, faq) },
      'a.json › menu › $.steps[0].body.title: `${faq:data.title}` refers to step `faq`, which runs later (steps[1])',
    ],
    [
      'unset env var without default',
      { 'a.json': steps({ ...faq, body: { title: '${env:SEED_TITLE}', template_slug: 'faq' } }) },
      'a.json › faq › $.steps[0].body.title: environment variable `SEED_TITLE` is not set',
    ],
    [
      'duplicate step name across files',
      { 'a.json': steps(faq), 'b.json': steps(menu, faq) },
      'b.json › faq › $.steps[1].name: step name `faq` is already used by steps[0] of {dir}/a.json; names must be unique across every file of a run.',
    ],
  ];

  it.each(rows)('%s', async (_label, files, line) => {
    const before = (await listings()).length;
    const args = Object.entries(files).map(([name, doc]) => file(name, doc));
    const out = path.join(tmp.dir, 'out.json');
    const r = await seed([...args, '--output', out]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Error: 1 problem in the seed files; nothing was sent\.\n/);
    expect(r.stderr).toContain(`  ${path.join(tmp.dir, line.replaceAll('{dir}', tmp.dir))}`);
    expect((await listings()).length).toBe(before);
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    expect(doc).toMatchObject({ ok: false, steps: {}, not_run: [] });
    expect(doc.problems).toHaveLength(1);
  });

  it('with --json, the problems go to stderr as JSON', async () => {
    const r = await runInProcess(
      ['seed', '--json', file('a.json', steps(faq, { name: 'm', operation: 'getMe', body: {} }))],
      { env: env() },
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const err = JSON.parse(r.stderr);
    expect(err.problems).toEqual([
      {
        file: path.join(tmp.dir, 'a.json'),
        step: 'm',
        index: 1,
        path: '$.steps[1].body',
        message: '`getMe` takes no body; remove `body`.',
      },
    ]);
  });
});

describe('wcm seed: a step that fails', () => {
  // A 422 only the server can see: the schema lets a contribution omit `amount_minor`, pricing does not.
  // (Template slugs are checked by the schema, so `wcm seed` catches those before sending.)
  const bad = {
    name: 'bad',
    operation: 'createPaymentIntent',
    params: { offer: demo.offerContributionUsd },
    body: { quantity: 1 },
  };
  const after = { name: 'after', operation: 'createListing', body: { title: 'Never', template_slug: 'faq' } };

  it('stops, names the step and its problem, lists what was created, and writes --output with what succeeded', async () => {
    const before = await listings();
    const a = file('a.json', steps(faq, menu));
    const b = file('b.json', steps(bad, after));
    const out = path.join(tmp.dir, 'out.json');
    const r = await seed([a, b, '--output', out]);
    expect(r.code).toBe(3);
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    const created = (await listings()).slice(0, 2);
    expect((await listings()).length).toBe(before.length + 2);
    expect(created.map((l) => l.id)).toEqual([doc.steps.menu.data.id, doc.steps.faq.data.id]);
    expect(doc.ok).toBe(false);
    expect(doc.steps.bad).toMatchObject({
      operation: 'createPaymentIntent',
      status: 422,
      ok: false,
      error: { code: 'validation_failed' },
    });
    expect(doc.steps.bad.error.errors.amount_minor).toHaveLength(1);
    expect(doc.not_run).toEqual(['after']);
    expect(Object.keys(doc.steps)).toEqual(['faq', 'menu', 'bad']);

    const lines = r.stderr.split('\n');
    expect(lines[0]).toBe(`Error: step bad (${b}, steps[0]) failed: createPaymentIntent → 422 validation_failed`);
    expect(r.stderr).toMatch(/\n {2}• amount_minor: /);
    expect(r.stderr).toMatch(/\n {2}request id: req_/);
    const i = lines.indexOf('Already created or changed (nothing is rolled back):');
    expect(lines.slice(i + 1, i + 3)).toEqual([
      `  faq   createListing  ${doc.steps.faq.data.id}`,
      `  menu  createListing  ${doc.steps.menu.data.id}`,
    ]);
    expect(lines).toContain('Not run: after');
    // stdout still holds the rows of the steps that ran, the failed one included.
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t').slice(0, 3).join(' ')),
    ).toEqual(['faq createListing 201', 'menu createListing 201', 'bad createPaymentIntent 422']);
  });

  it('says when nothing was created before the failure', async () => {
    const r = await seed([file('a.json', steps(bad, faq))]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('Nothing was created before the failure.');
    expect(r.stderr).toContain('Not run: faq');
  });

  it('with --json, stderr gets the problem with the step and what was created', async () => {
    const r = await runInProcess(['seed', '--json', file('a.json', steps(faq, bad))], { env: env() });
    expect(r.code).toBe(3);
    const err = JSON.parse(r.stderr);
    const doc = JSON.parse(r.stdout);
    expect(err).toMatchObject({
      step: 'bad',
      operation: 'createPaymentIntent',
      status: 422,
      code: 'validation_failed',
      created: { faq: doc.steps.faq.data.id },
      not_run: [],
    });
  });

  it("--continue-on-error runs the rest, skips steps that need the failed one, and exits with the failure's code", async () => {
    const before = (await listings()).length;
    const needsBad = {
      name: 'needs_bad',
      operation: 'createListing',
      body: { title: 'About ${bad:data.order.id}', template_slug: 'faq' },
    };
    const needsSkipped = {
      name: 'needs_skipped',
      operation: 'listListings',
      params: { cursor: '${needs_bad:meta.request_id}' },
    };
    const out = path.join(tmp.dir, 'out.json');
    const r = await seed([
      file('a.json', steps(faq, bad, needsBad, needsSkipped, menu)),
      '--continue-on-error',
      '--output',
      out,
    ]);
    expect(r.code).toBe(3);
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    expect(
      Object.fromEntries(Object.entries(doc.steps).map(([k, v]) => [k, (v as { status: number | null }).status])),
    ).toEqual({
      faq: 201,
      bad: 422,
      needs_bad: null,
      needs_skipped: null,
      menu: 201,
    });
    expect(doc.steps.needs_bad.skipped).toBe('uses the result of step `bad`, which failed');
    expect(doc.steps.needs_skipped.skipped).toBe('uses the result of step `needs_bad`, which was skipped');
    expect((await listings()).length).toBe(before + 2);
    expect(r.stderr).toContain('2 more steps failed or skipped after it');
  });

  // The exit code is the docs/cli.md#output-errors-and-exit-codes mapping of the failing status.
  it.each([
    [
      '404 (a page id that names nothing)',
      5,
      [faq, { name: 'p', operation: 'getPage', params: { page: '${faq:data.title}' } }],
      {},
      /404 page_not_found/,
    ],
    [
      '403 (a workspace the token is not a member of)',
      4,
      { ...faq, params: { workspace: randomUUID() } },
      {},
      /403 not_a_member/,
    ],
    ['403 (token without content:write)', 4, faq, { WCM_TOKEN: demo.contentReader }, /403 insufficient_ability/],
    [
      '401 (unknown token)',
      4,
      faq,
      { WCM_TOKEN: 'wcm_pat_unknown0123456789abcdefghijklmnopqrstu' },
      /401 invalid_token/,
    ],
    [
      'network failure',
      1,
      { name: 'me', operation: 'getMe' },
      { WCM_BASE_URL: 'http://127.0.0.1:9/v1', WCM_RETRIES: '0' },
      /No server is answering at http:\/\/127\.0\.0\.1:9: the connection was refused/,
    ],
  ] as Array<[string, number, unknown, Record<string, string>, RegExp]>)(
    '%s exits %i',
    async (_label, code, step, over, message) => {
      const r = await seed([file('a.json', steps(...(Array.isArray(step) ? step : [step])))], over);
      expect(r.code).toBe(code);
      expect(r.stderr).toMatch(message);
    },
  );

  it('fails the step, before sending it, when a reference finds nothing in an earlier response; a default fills in', async () => {
    const all = { name: 'all', operation: 'listListings', params: { limit: 2 } };
    const r = await seed([
      file(
        'a.json',
        steps(all, {
          name: 'm',
          operation: 'createListing',
          body: { title: '${all:data.7.title}', template_slug: 'menu' },
        }),
      ),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("`${all:data.7.title}` found nothing: `data.7.title` is not in step `all`'s response.");
    const ok = await seed([
      file(
        'b.json',
        steps(all, {
          name: 'm',
          operation: 'createListing',
          body: { title: '${all:data.7.title|Fallback title}', template_slug: 'menu' },
        }),
      ),
    ]);
    expect(ok.code).toBe(0);
    expect((await listings())[0].title).toBe('Fallback title');
  });
});
