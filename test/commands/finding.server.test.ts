import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Prompter } from '../../src/cli/io.js';
import { ID_PICKERS } from '../../src/cli/pickers.js';
import { operations } from '../../src/contract/operations.js';
import { commands } from '../../commands/index.js';
import { fakeIO, runInProcess } from '../support/cli.js';
import { demo, onPort, tempDir } from '../support/server.js';

let server: Awaited<ReturnType<typeof onPort>>;
let cfg: ReturnType<typeof tempDir>;
let env: Record<string, string>;
// A fresh server (and config directory) for every test: tests here write, and none may see another's writes.
beforeEach(async () => {
  server = await onPort();
  cfg = tempDir('wcm-finding-');
  env = { WCM_CONFIG_DIR: cfg.dir, WCM_BASE_URL: server.url, WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws1 };
});
afterEach(async () => {
  await server.close();
  cfg.cleanup();
});

const run = (args: string[], o: { io?: ReturnType<typeof fakeIO>; env?: Record<string, string> } = {}) =>
  runInProcess(args, { io: o.io, env: { ...env, ...o.env } });
const tsv = (out: string) =>
  out
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => l.split('\t'));
const ws1 = <C extends 'forms' | 'pages' | 'knowledge_lists' | 'offers' | 'agents'>(c: C) =>
  [...server.store.values(c)].filter((r) => r.workspace_id === demo.ws1);

describe('the ls commands', () => {
  // [command, operation, a record → its piped row]
  const rows: Array<[string[], string, () => string[][]]> = [
    [
      ['forms', 'ls'],
      'listForms',
      () => ws1('forms').map((f) => [f.id, f.name, String(f.fields.length), f.updated_at ?? '']),
    ],
    [
      ['pages', 'ls'],
      'listPages',
      () => ws1('pages').map((p) => [p.id, p.name, p.slug, String(p.published), p.updated_at ?? '']),
    ],
    [
      ['knowledge', 'ls'],
      'listKnowledgeLists',
      () =>
        ws1('knowledge_lists').map((k) => [
          k.id,
          k.name,
          String([...server.store.values('articles')].filter((a) => a.list_id === k.id).length),
        ]),
    ],
    [
      ['offers', 'ls'],
      'listOffers',
      () =>
        ws1('offers').map((o) => [
          o.id,
          o.kind,
          o.title,
          o.currency,
          o.unit_amount_minor === null ? '' : String(o.unit_amount_minor),
          String(o.active),
        ]),
    ],
    [['agents', 'ls'], 'listAgents', () => ws1('agents').map((a) => [a.id, a.name])],
  ];

  it.each(rows)(
    "%j piped: one tab-separated row per record, in the API's order; --json is the API's data",
    async (argv, operationId, expected) => {
      const piped = await run(argv);
      expect(piped.code).toBe(0);
      const got = tsv(piped.stdout);
      expect(got).toHaveLength(expected().length);
      expect(new Set(got.map((r) => r.join('\t')))).toEqual(new Set(expected().map((r) => r.join('\t'))));
      const json = await run([...argv, '--json']);
      expect(json.code).toBe(0);
      const data = JSON.parse(json.stdout);
      const path = operations[operationId as keyof typeof operations].path.replace('{workspace}', demo.ws1);
      const api = await fetch(`${server.url}${path}?limit=100`, {
        headers: { authorization: `Bearer ${demo.owner}` },
      }).then((r) => r.json());
      expect(data).toEqual(api.data);
      expect(got.map((r) => r[0])).toEqual(data.map((x: { id: string }) => x.id));
    },
  );

  it.each([
    [
      ['forms', 'ls'],
      ['ID', 'NAME', 'FIELDS', 'UPDATED'],
    ],
    [
      ['pages', 'ls'],
      ['ID', 'NAME', 'SLUG', 'PUBLISHED', 'UPDATED'],
    ],
    [
      ['knowledge', 'ls'],
      ['ID', 'NAME', 'ARTICLES'],
    ],
    [
      ['offers', 'ls'],
      ['ID', 'KIND', 'TITLE', 'CURRENCY', 'PRICE', 'ACTIVE'],
    ],
    [
      ['agents', 'ls'],
      ['ID', 'NAME'],
    ],
  ])('%j on a terminal: a table with a header row', async (argv, headers) => {
    const r = await run(argv, { io: fakeIO({ tty: true }) });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0].split(/\s{2,}/)).toEqual(headers);
    expect(lines.length).toBeGreaterThan(2);
  });

  it('offers ls on a terminal shows prices as money and who sets a contribution', async () => {
    const r = await run(['offers', 'ls'], { io: fakeIO({ tty: true }) });
    expect(r.stdout).toMatch(/Home barista class voucher\s+usd\s+25\.00 USD\s+active/);
    expect(r.stdout).toMatch(/Support our farmer fund\s+usd\s+buyer sets\s+active/);
    expect(r.stdout).toMatch(/sold out\)\s+usd\s+32\.00 USD\s+inactive/);
  });

  it.each([
    ['--published', true],
    ['--unpublished', false],
  ] as const)('pages ls %s lists only those pages', async (flag, published) => {
    const r = await run(['pages', 'ls', flag, '--json']);
    expect(r.code).toBe(0);
    const data = JSON.parse(r.stdout) as Array<{ id: string; published: boolean }>;
    expect(data.map((p) => p.id).sort()).toEqual(
      ws1('pages')
        .filter((p) => p.published === published)
        .map((p) => p.id)
        .sort(),
    );
  });

  it('pages ls --published --unpublished is a usage error, before any request', async () => {
    const r = await run(['--debug', 'pages', 'ls', '--published', '--unpublished']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('`--published` and `--unpublished` cannot be used together');
    expect(r.stderr).not.toContain('> GET');
  });

  it('--limit pages like the other lists: the next cursor on stderr, --cursor continues, --all has them all', async () => {
    const first = await run(['forms', 'ls', '--limit', '1'], { io: fakeIO({ tty: true }) });
    const cursor = /--cursor (\S+)/.exec(first.stderr)?.[1];
    expect(cursor).toBeTruthy();
    const rest = await run(['forms', 'ls', '--cursor', cursor!, '--all', '--json']);
    const all = await run(['forms', 'ls', '--all', '--json']);
    const allIds = JSON.parse(all.stdout).map((f: { id: string }) => f.id);
    expect(allIds).toHaveLength(ws1('forms').length);
    expect(JSON.parse(rest.stdout).map((f: { id: string }) => f.id)).toEqual(allIds.slice(1));
    expect((await run(['forms', 'ls', '--limit', '0'])).code).toBe(2);
  });

  // A bad cursor is a usage error naming the flag (issue 37 #14), saying what is wrong with it.
  it('a bad --cursor is exit 2 naming --cursor', async () => {
    const r = await run(['agents', 'ls', '--cursor', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('`--cursor nope` is not a cursor of this list');
  });
});

describe('wcm lists show', () => {
  it('piped: key<TAB>value lines, then one item line per item; --json is what createListing returned', async () => {
    const created = await run([
      'lists',
      'create',
      '--json',
      '--title',
      'Hours',
      '--template',
      'hours',
      '--item',
      'Mon: 8 to 6',
      '--item',
      'Sun',
    ]);
    const listing = JSON.parse(created.stdout);
    const piped = await run(['lists', 'show', listing.id]);
    expect(piped.code).toBe(0);
    expect(tsv(piped.stdout)).toEqual([
      ['id', listing.id],
      ['title', 'Hours'],
      ['template', 'hours'],
      ['items', '2'],
      ['button', ''], // null: an empty field when piped (a terminal shows —)
      ['created_at', listing.created_at],
      ['dashboard', listing.dashboard_url],
      ['item', 'Mon', '8 to 6'],
      ['item', 'Sun', ''],
    ]);
    const json = await run(['lists', 'show', listing.id, '--json']);
    expect(JSON.parse(json.stdout)).toEqual(listing);
  });

  it("another workspace's listing: the server's 404 listing_not_found, exit 5", async () => {
    const other = [...server.store.values('listings')].find((l) => l.workspace_id === demo.ws2)!;
    const r = await run(['lists', 'show', other.id]);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('listing_not_found');
  });
});

describe('id arguments left out', () => {
  // [argv with the id left out, the argument named]
  const missing: Array<[string[], string]> = [
    [['forms', 'get'], 'FORM'],
    [['forms', 'update', '--name', 'x'], 'FORM'],
    [['pages', 'get'], 'PAGE'],
    [['pages', 'update', '--publish'], 'PAGE'],
    [['articles', 'ls'], 'LIST'],
    [['articles', 'show', demo.knowledgeList], 'ARTICLE'],
    [['articles', 'restore', demo.knowledgeList, demo.article3Versions], 'VERSION'],
    [['lists', 'show'], 'LIST'],
    [['commerce', 'pay'], 'OFFER'],
    [['agents', 'opened'], 'AGENT'],
    [['threads', 'show'], 'THREAD'],
  ];

  it.each(missing)('piped, %j is a usage error naming `%s`, before any request', async (argv, name) => {
    const r = await run(['--debug', ...argv]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Missing the \`${name}\` argument`);
    expect(r.stderr).not.toContain('[debug] >');
  });

  it('every command with a pickable argument names a picker of the table, whose operation exists', () => {
    const picked = commands.flatMap((c) =>
      (c.args ?? []).filter((a) => a.pick).map((a) => `${c.path.join(' ')} ${a.name}`),
    );
    expect(picked.length).toBeGreaterThanOrEqual(missing.length);
    for (const p of Object.values(ID_PICKERS)) expect(Object.keys(operations)).toContain(p.operationId);
  });

  /** A prompter whose `search` records what it offered and answers with `choose(choices)`. */
  function searching(choose: (choices: Array<{ name: string; value: string }>, message: string) => string) {
    const asked: Array<{ message: string; choices: Array<{ name: string; value: string; description?: string }> }> = [];
    const prompter: Partial<Prompter> = {
      search: (async (o: Parameters<Prompter['search']>[0]) => {
        const choices = await o.source(undefined);
        asked.push({ message: o.message, choices });
        return choose(choices, o.message);
      }) as Prompter['search'],
    };
    return { io: fakeIO({ tty: true, prompter }), asked };
  }

  it("on a terminal, forms get offers the workspace's forms and shows the one chosen", async () => {
    const { io, asked } = searching((choices) => choices.find((c) => c.name === 'Catering request')!.value);
    const r = await run(['forms', 'get'], { io });
    expect(r.code).toBe(0);
    expect(asked).toHaveLength(1);
    expect(asked[0].message).toBe('Choose a form');
    expect(asked[0].choices.map((c) => c.value).sort()).toEqual(
      ws1('forms')
        .map((f) => f.id)
        .sort(),
    );
    expect(r.stdout).toMatch(new RegExp(`id\\s+${demo.formCatering}`));
  });

  it('the search filters by what is typed (name or id, any case)', async () => {
    let filtered: string[] = [];
    const prompter: Partial<Prompter> = {
      search: (async (o: Parameters<Prompter['search']>[0]) => {
        filtered = (await o.source('WHOLESALE')).map((c) => c.name);
        expect((await o.source(demo.agent1.slice(0, 8))).map((c) => c.value)).toEqual([demo.agent1]);
        return demo.agent1;
      }) as Prompter['search'],
    };
    const r = await run(['agents', 'opened', '--json'], { io: fakeIO({ tty: true, prompter }) });
    expect(r.code).toBe(0);
    expect(filtered).toEqual(['Acme Wholesale Helper']);
    expect(JSON.parse(r.stdout).agent_id).toBe(demo.agent1);
  });

  it('articles restore picks LIST, then ARTICLE within it, then VERSION of that article', async () => {
    const { io, asked } = searching((choices, message) => {
      if (message === 'Choose a knowledge list') return demo.knowledgeList;
      if (message === 'Choose an article') return demo.article3Versions;
      return choices[choices.length - 1].value; // the oldest version (newest first)
    });
    const r = await run(['articles', 'restore', '--json'], { io });
    expect(r.code).toBe(0);
    expect(asked.map((a) => a.message)).toEqual(['Choose a knowledge list', 'Choose an article', 'Choose a version']);
    const articles = [...server.store.values('articles')].filter((a) => a.list_id === demo.knowledgeList);
    expect(asked[1].choices.map((c) => c.value).sort()).toEqual(articles.map((a) => a.id).sort());
    expect(asked[2].choices.map((c) => c.value)).toEqual(['3', '2', '1']);
    expect(JSON.parse(r.stdout).version.restored_from).toBe(1);
  });

  it('commerce pay offers only active offers', async () => {
    const { io, asked } = searching((choices) => choices[0].value);
    await run(['commerce', 'pay', '--json', '--amount', '2500'], { io });
    expect(asked[0].choices.map((c) => c.value).sort()).toEqual(
      ws1('offers')
        .filter((o) => o.active)
        .map((o) => o.id)
        .sort(),
    );
    expect(asked[0].choices.map((c) => c.value)).not.toContain(demo.offerInactive);
  });

  it('nothing to choose from: a plain message, exit 5', async () => {
    const { io, asked } = searching(() => 'never');
    const r = await run(['pages', 'get'], { io, env: { WCM_WORKSPACE: demo.ws3, WCM_TOKEN: demo.ciWriter } });
    expect(r.code).toBe(5);
    expect(asked).toHaveLength(0);
    expect(r.stderr).toContain(`No pages to choose from in workspace ${demo.ws3}`);
  });

  it('a public command with no workspace says the argument is missing first', async () => {
    const { io } = searching(() => 'never');
    const r = await run(['agents', 'opened'], { io, env: { WCM_WORKSPACE: '' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Missing the `AGENT` argument, and no list to choose it from: No workspace chosen.');
  });
});

describe('against an instance without the extension (404 route_not_found)', () => {
  let old: Server;
  let base: string;
  beforeAll(async () => {
    // What a server with only the seed contract answers for a path it does not know.
    old = createServer((req, res) => {
      res.writeHead(404, { 'content-type': 'application/problem+json' });
      res.end(
        JSON.stringify({
          type: 'urn:wcm:problem:route_not_found',
          title: 'Route not found',
          status: 404,
          code: 'route_not_found',
          detail: `No route for \`${req.method} ${req.url}\`.`,
          resolution: 'Check the path.',
          instance: req.url,
          request_id: 'req_1',
          errors: {},
        }),
      );
    });
    await new Promise<void>((r) => old.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(old.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => old.close(() => r())));

  it.each([
    [['forms', 'ls'], 'listForms', 'GET /workspaces/{workspace}/forms'],
    [['pages', 'ls', '--published'], 'listPages', 'GET /workspaces/{workspace}/pages'],
    [['knowledge', 'ls'], 'listKnowledgeLists', 'GET /workspaces/{workspace}/knowledge-lists'],
    [['offers', 'ls'], 'listOffers', 'GET /workspaces/{workspace}/offers'],
    [['agents', 'ls', '--all'], 'listAgents', 'GET /workspaces/{workspace}/agents'],
    [['lists', 'show', demo.newestThread], 'getListing', 'GET /workspaces/{workspace}/lists/{list}'],
  ])('%j says the server does not have %s, exit 5', async (argv, operationId, route) => {
    const r = await run(argv, { env: { WCM_BASE_URL: base } });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`This server does not have the \`${operationId}\` operation (${route}).`);
  });

  it('the same when a picker needs the list', async () => {
    const r = await run(['forms', 'get'], { io: fakeIO({ tty: true, prompter: {} }), env: { WCM_BASE_URL: base } });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('This server does not have the `listForms` operation');
  });

  it("an operation of the seed contract keeps the server's own problem (a wrong base URL, most likely)", async () => {
    const r = await run(['lists', 'ls'], { env: { WCM_BASE_URL: base } });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('Route not found');
    expect(r.stderr).not.toContain('does not have');
  });
});
