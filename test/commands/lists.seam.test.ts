// `wcm lists` through the run(options, factory) seam: flags become the request, bad ones are refused
// before any request. The same commands against the real server: lists.server.test.ts and finding.server.test.ts.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import listsCreate from '../../commands/lists/create.js';
import listsLs from '../../commands/lists/ls.js';
import listsShow from '../../commands/lists/show.js';
import listsTemplates from '../../commands/lists/templates.js';
import { CliError } from '../../src/cli/errors.js';
import type { Prompter } from '../../src/cli/io.js';
import { fakeIO } from '../support/cli.js';
import { SEAM_WS, record, seamHarness, type SeamHarness } from './harness.js';

const LIST = '249663da-4645-4a27-80da-510adb5532b5';
const listing = (origin: string) => ({
  id: LIST,
  title: 'FAQ',
  template_slug: 'faq',
  items: [{ title: 'Hours?', description: '8 to 6' }],
  button_id: null,
  created_at: '2026-11-01T10:00:00.000Z',
  dashboard_url: `${origin}/dashboard/workspaces/${SEAM_WS}/lists/${LIST}`,
});
/** Answers a list page for GET of a collection, else the listing (dashboard_url on the stub's origin). */
const listingsStub = (o: Parameters<typeof seamHarness>[1] = {}) => {
  let origin = '';
  const harness = seamHarness(
    (req) => (req.method === 'GET' && !req.url.includes(LIST) ? record([]) : record(listing(origin))),
    o,
  );
  return harness.then((x) => ((origin = x.stub.url), x));
};

let h: SeamHarness;
afterEach(() => h.close());
const refused = (def: Parameters<SeamHarness['refused']>[0], opts: object) => h.refused(def, opts);

describe('wcm lists ls / templates / show (run seam)', () => {
  it("ls lists the workspace's listings; --all asks for pages of 100", async () => {
    h = await seamHarness();
    expect(await h.run(listsLs)).toBe(0);
    expect(h.request(0)).toEqual({ method: 'GET', path: `/workspaces/${SEAM_WS}/lists`, query: {} });
    await h.run(listsLs, { all: true, cursor: 'x' });
    expect(h.request(1).query).toEqual({ limit: '100', cursor: 'x' });
  });

  it('templates lists the setup catalog, which needs no workspace', async () => {
    h = await seamHarness(undefined, { env: { WCM_WORKSPACE: undefined } });
    expect(await h.run(listsTemplates, { limit: '10' })).toBe(0);
    expect(h.request()).toEqual({ method: 'GET', path: '/setup/listing-templates', query: { limit: '10' } });
  });

  it('show LIST gets that listing; piped, an `item` line per item after the fields', async () => {
    h = await listingsStub();
    expect(await h.run(listsShow, { args: [LIST] })).toBe(0);
    expect(h.request()).toEqual({ method: 'GET', path: `/workspaces/${SEAM_WS}/lists/${LIST}`, query: {} });
    expect(h.io.out()).toMatch(/^id\t249663da-[^\n]*\n(?:[^\n]*\n)*item\tHours\?\t8 to 6\n$/);
  });

  it("show --web prints the listing's dashboard_url when piped, and only it", async () => {
    h = await listingsStub();
    expect(await h.run(listsShow, { args: [LIST], web: true })).toBe(0);
    expect(h.io.out()).toBe(`${listing(h.stub.url).dashboard_url}\n`);
  });

  it('show --web refuses a dashboard_url on another origin than the target (exit 1), printing nothing', async () => {
    h = await seamHarness(() => record(listing('http://evil.example')));
    const err = await h.run(listsShow, { args: [LIST], web: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(1);
    expect((err as Error).message).toContain('Not opening `http://evil.example/dashboard/');
    expect(h.io.out()).toBe('');
  });
});

describe('wcm lists create (run seam)', () => {
  it('--title, --template and each --item ("Title" or "Title: description") become the createListing body', async () => {
    h = await listingsStub();
    const code = await h.run(listsCreate, { title: 'FAQ', template: 'faq', item: ['Hours?: 8 to 6', 'Parking?'] });
    expect(code).toBe(0);
    expect(h.request()).toEqual({ method: 'POST', path: `/workspaces/${SEAM_WS}/lists`, query: {} });
    expect(h.body()).toEqual({
      title: 'FAQ',
      template_slug: 'faq',
      items: [{ title: 'Hours?', description: '8 to 6' }, { title: 'Parking?' }],
    });
  });

  it('--items-file items come after the --item ones, as written', async () => {
    h = await listingsStub();
    writeFileSync(path.join(h.cwd, 'items.json'), JSON.stringify([{ title: 'Soup', description: 'daily' }]));
    await h.run(listsCreate, { title: 'Menu', template: 'menu', item: ['Bread'], itemsFile: 'items.json' });
    expect(h.body()).toEqual({
      title: 'Menu',
      template_slug: 'menu',
      items: [{ title: 'Bread' }, { title: 'Soup', description: 'daily' }],
    });
  });

  it('piped without --title or --template: a usage error naming what is missing, with an example', async () => {
    h = await seamHarness();
    expect(await refused(listsCreate, { template: 'faq' })).toBe('Missing --title.');
    expect(await refused(listsCreate, {})).toBe('Missing --title and --template.');
  });

  it('an --items-file that is not a JSON array, or not JSON: a usage error naming the flag', async () => {
    h = await seamHarness();
    writeFileSync(path.join(h.cwd, 'obj.json'), '{"title": "x"}');
    writeFileSync(path.join(h.cwd, 'bad.json'), '[{');
    expect(await refused(listsCreate, { title: 'T', template: 'faq', itemsFile: 'obj.json' })).toBe(
      '`--items-file` must hold a JSON array of {"title", "description"} objects.',
    );
    expect(await refused(listsCreate, { title: 'T', template: 'faq', itemsFile: 'bad.json' })).toMatch(
      /^`--items-file`: .*bad\.json is not valid JSON \(/,
    );
  });

  it('on a terminal with --title only: the template is chosen from the catalog (one page of 100), then created', async () => {
    const offered: string[] = [];
    const prompter: Partial<Prompter> = {
      select: ((o: { choices: Array<{ value: string }> }) => {
        offered.push(...o.choices.map((c) => c.value));
        return Promise.resolve('menu');
      }) as Prompter['select'],
      confirm: () => Promise.resolve(false),
    };
    h = await seamHarness(
      (req) =>
        req.method === 'GET'
          ? record([
              { slug: 'faq', name: 'FAQ', description: 'Questions' },
              { slug: 'menu', name: 'Menu', description: 'Dishes' },
            ])
          : record(listing('http://x')),
      { io: fakeIO({ tty: true, prompter }) },
    );
    expect(await h.run(listsCreate, { title: 'Lunch' })).toBe(0);
    expect(h.request(0)).toEqual({ method: 'GET', path: '/setup/listing-templates', query: { limit: '100' } });
    expect(offered).toEqual(['faq', 'menu']);
    expect(h.body(1)).toEqual({ title: 'Lunch', template_slug: 'menu', items: [] });
  });
});
