// One set of verbs (`show` with `get`/`view`, `ls` with `list`), every id checked before a request,
// and article versions written as `articles show` prints them (`v2`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prompter } from '../../src/cli/io.js';
import { commands } from '../../commands/index.js';
import { httpStub, type Stub } from '../client/stubs.js';
import { fakeIO, runInProcess, wcm } from '../support/cli.js';
import { demo, onPort, tempDir } from '../support/server.js';

let server: Awaited<ReturnType<typeof onPort>>;
let stub: Stub;
let cfg: ReturnType<typeof tempDir>;
let env: Record<string, string>;
beforeAll(async () => {
  server = await onPort();
  stub = await httpStub(() => ({ status: 500, body: { title: 'should not be asked' } }));
  cfg = tempDir('wcm-verbs-');
  env = { WCM_CONFIG_DIR: cfg.dir, WCM_BASE_URL: server.url, WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws1 };
});
afterAll(async () => {
  await Promise.all([server.close(), stub.close()]);
  cfg.cleanup();
});

const run = (args: string[], o: { io?: ReturnType<typeof fakeIO>; env?: Record<string, string> } = {}) =>
  runInProcess(args, { io: o.io, env: { ...env, ...o.env } });

describe('verbs', () => {
  it('every command shows with `show` (no `get` command is left)', () => {
    const verbs = new Set(commands.map((c) => c.path[c.path.length - 1]));
    expect(verbs.has('get')).toBe(false);
    expect(commands.map((c) => c.path.join(' '))).toEqual(
      expect.arrayContaining(['forms show', 'pages show', 'lists show', 'threads show', 'articles show']),
    );
  });

  it.each([
    [
      ['forms', 'get', demo.formCatering],
      ['forms', 'show', demo.formCatering],
    ],
    [
      ['forms', 'view', demo.formCatering],
      ['forms', 'show', demo.formCatering],
    ],
    [
      ['pages', 'get', demo.pageAcme],
      ['pages', 'show', demo.pageAcme],
    ],
    [
      ['threads', 'view', demo.newestThread],
      ['threads', 'show', demo.newestThread],
    ],
    [
      ['threads', 'list'],
      ['threads', 'ls'],
    ],
    [
      ['lists', 'list', '--limit', '2'],
      ['lists', 'ls', '--limit', '2'],
    ],
    [
      ['articles', 'list', demo.knowledgeList],
      ['articles', 'ls', demo.knowledgeList],
    ],
    [
      ['oauth', 'apps', 'list'],
      ['oauth', 'apps', 'ls'],
    ],
  ])('%j does what %j does', async (alias, canonical) => {
    const [a, b] = [await run([...alias, '--json']), await run([...canonical, '--json'])];
    expect(a.code, a.stderr).toBe(0);
    expect(JSON.parse(a.stdout)).toEqual(JSON.parse(b.stdout));
  });

  it('the built binary: `threads list` and `forms get` work (no "did you mean ls")', async () => {
    const [list, get] = await Promise.all([
      wcm(['threads', 'list'], { env }),
      wcm(['forms', 'get', demo.formCatering, '--json', 'id,name'], { env }),
    ]);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stdout.split('\n')[0].split('\t')[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(get.exitCode, get.stderr).toBe(0);
    expect(JSON.parse(get.stdout)).toEqual({ id: demo.formCatering, name: 'Catering request' });
  });

  it('help names the aliases', async () => {
    const r = await run(['forms', '--help']);
    expect(r.stdout).toMatch(/show\|get/);
  });
});

describe('ids are checked before any request', () => {
  it.each<[string[], RegExp, string]>([
    [['forms', 'show', 'catering'], /`FORM` must be a form id \(a UUID\); received `catering`/, 'wcm forms ls'],
    [['pages', 'get', '7118…'], /`PAGE` must be a page id/, 'wcm pages ls'],
    [['pages', 'update', 'home', '--publish'], /`PAGE` must be a page id/, 'wcm pages ls'],
    [['lists', 'show', '9b1e'], /`LIST` must be a listing id/, 'wcm lists ls'],
    [['threads', 'show', 'latest'], /`THREAD` must be a thread id/, 'wcm threads ls'],
    [['articles', 'show', demo.knowledgeList, 'c866'], /`ARTICLE` must be an article id/, 'wcm articles ls LIST'],
    [
      ['articles', 'restore', 'faq', demo.article3Versions, '1'],
      /`LIST` must be a knowledge list id/,
      'wcm knowledge ls',
    ],
    [
      ['articles', 'restore', demo.knowledgeList, demo.article3Versions, 'latest'],
      /`VERSION` must be a version number \(1, 2, … or v2\) or a version id/,
      'wcm articles show LIST ARTICLE',
    ],
    [['commerce', 'pay', 'voucher'], /`OFFER` must be an offer id/, 'wcm offers ls'],
    [['agents', 'opened', 'barista'], /`AGENT` must be an agent id/, 'wcm agents ls'],
    [['oauth', 'apps', 'rm', 'helpdesk', '--yes'], /`APP` must look like a client id, wcm_app_/, 'wcm oauth apps ls'],
    [
      ['oauth', 'grants', 'revoke', 'grant_x', '--yes'],
      /`GRANT` must look like a grant id, grant_/,
      'wcm oauth grants ls',
    ],
  ])('%j: exit 2, the hint names %s, nothing is sent', async (args, message, hint) => {
    const before = stub.requests.length;
    const r = await run(args, { env: { WCM_BASE_URL: stub.base } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain(
      `Find ids with \`${hint}\``.replace(
        'Find ids with `wcm articles show',
        'See the versions with `wcm articles show',
      ),
    );
    expect(stub.requests.length).toBe(before);
  });

  it.each([
    [
      ['forms', 'ls', '--workspace', 'acme'],
      /The workspace \(from --workspace\) must be a workspace id \(a UUID\); received `acme`/,
    ],
    [['threads', 'ls'], /The workspace \(from WCM_WORKSPACE\) must be a workspace id/],
  ])('the workspace is an id too: %j is exit 2 before any request', async (args, message) => {
    const before = stub.requests.length;
    const r = await run(args, { env: { WCM_BASE_URL: stub.base, WCM_WORKSPACE: 'acme' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain('`wcm auth status` lists the workspaces');
    expect(stub.requests.length).toBe(before);
  });
});

describe('article versions', () => {
  it('`restore LIST ARTICLE v2` restores version 2, as `articles show` labels it', async () => {
    const shown = await run(['articles', 'show', demo.knowledgeList, demo.article4Versions], {
      io: fakeIO({ tty: true }),
    });
    expect(shown.stdout).toMatch(/^v2\b/m);
    const r = await run(['articles', 'restore', demo.knowledgeList, demo.article4Versions, 'v2', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).version.restored_from).toBe(2);
  });

  it('an unknown version: the hint names the wcm command that lists them', async () => {
    const r = await run(['articles', 'restore', demo.knowledgeList, demo.article3Versions, 'v42']);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`\`wcm articles show ${demo.knowledgeList} ${demo.article3Versions}\` lists them`);
    expect(r.stderr).not.toContain('GET the article');
  });

  it('the knowledge list picker skips empty lists when an article is picked from it next', async () => {
    const offered: string[][] = [];
    const prompter: Partial<Prompter> = {
      search: (async (o: Parameters<Prompter['search']>[0]) => {
        const choices = await o.source(undefined);
        offered.push(choices.map((c) => c.name));
        return choices[0].value;
      }) as Prompter['search'],
    };
    const r = await run(['articles', 'show'], { io: fakeIO({ tty: true, prompter }) });
    expect(r.code, r.stderr).toBe(0);
    const lists = [...server.store.values('knowledge_lists')].filter((k) => k.workspace_id === demo.ws1);
    const withArticles = lists.filter((k) => [...server.store.values('articles')].some((a) => a.list_id === k.id));
    expect(withArticles.length).toBeLessThan(lists.length);
    expect(offered[0].sort()).toEqual(withArticles.map((k) => k.name).sort());
    // `articles ls` shows a list's articles, none included: every list is offered there.
    offered.length = 0;
    await run(['articles', 'ls'], { io: fakeIO({ tty: true, prompter }) });
    expect(offered[0]).toHaveLength(lists.length);
  });
});
