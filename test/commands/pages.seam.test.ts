import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pagesLs from '../../commands/pages/ls.js';
import pagesShow from '../../commands/pages/show.js';
import pagesUpdate from '../../commands/pages/update.js';
import type { Prompter } from '../../src/cli/io.js';
import { applySet, parseSetValue } from '../../src/cli/set-flag.js';
import { fakeIO } from '../support/cli.js';
import { SEAM_WS, record, seamHarness, type SeamHarness } from './harness.js';

describe('--set parsing', () => {
  it.each<[string, unknown]>([
    ['true', true],
    ['false', false],
    ['null', null],
    ['42', 42],
    ['-1.5', -1.5],
    ['1e3', 1000],
    ['007', '007'],
    ['Hi there', 'Hi there'],
    ['"true"', 'true'],
    ['"42"', '42'],
    ['[1,"a"]', [1, 'a']],
    ['{"a":1}', { a: 1 }],
    ['[not json', '[not json'],
    ['', ''],
    ['a=b', 'a=b'],
  ])('%j → %j', (raw, expected) => {
    expect(parseSetValue(raw)).toEqual(expected);
  });

  it('dotted keys build nested objects and merge with earlier --set and --file members', () => {
    const body: Record<string, unknown> = { chat: { suggested_replies: [] } };
    applySet(body, 'chat.greeting=Hi');
    applySet(body, 'bio=Open=late');
    applySet(body, 'robots_index=false');
    applySet(body, 'a.b.c=1');
    expect(body).toEqual({
      chat: { suggested_replies: [], greeting: 'Hi' },
      bio: 'Open=late',
      robots_index: false,
      a: { b: { c: 1 } },
    });
  });

  it.each([
    ['no =', 'bio'],
    ['empty key', '=x'],
    ['empty segment', 'chat..greeting=x'],
    ['__proto__', '__proto__.polluted=1'],
    ['constructor', 'chat.constructor=1'],
    ['prototype', 'prototype=1'],
  ])('%s is a usage error', (_n, assignment) => {
    expect(() => applySet({}, assignment)).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a dotted key under a non-object member is a usage error', () => {
    const body: Record<string, unknown> = {};
    applySet(body, 'chat=null');
    expect(() => applySet(body, 'chat.greeting=Hi')).toThrow(/`chat` is already set to null/);
  });
});

describe('wcm pages through the run(options, factory) seam', () => {
  const PAGE = '71184361-1989-42ed-9156-e4650146c0d5';
  const pagePath = `/workspaces/${SEAM_WS}/pages/${PAGE}`;
  const stored = {
    id: PAGE,
    name: 'Home',
    slug: 'home',
    published: false,
    template: 'link-in-bio',
    display_name: null,
    bio: null,
    seo_title: null,
    seo_description: null,
    aeo_summary: null,
    agent_instructions: null,
    schema_type: 'Organization',
    chat: { greeting: null, suggested_replies: [] },
    robots_index: true,
    llms_enabled: true,
    updated_at: null,
  };
  let h: SeamHarness;
  beforeEach(async () => {
    h = await seamHarness((req) => (/\/pages(\?|$)/.test(req.url) ? record([]) : record(stored)));
  });
  afterEach(() => h.close());
  const refused = (def: Parameters<SeamHarness['refused']>[0], opts: object) => h.refused(def, opts);

  it('ls: --published is published=true, --unpublished published=false, neither no filter', async () => {
    await h.run(pagesLs);
    await h.run(pagesLs, { published: true });
    await h.run(pagesLs, { unpublished: true, limit: '5' });
    expect(h.request(0)).toEqual({ method: 'GET', path: `/workspaces/${SEAM_WS}/pages`, query: {} });
    expect(h.request(1).query).toEqual({ published: 'true' });
    expect(h.request(2).query).toEqual({ published: 'false', limit: '5' });
  });

  it('ls --published --unpublished: a usage error naming both, nothing sent', async () => {
    expect(await refused(pagesLs, { published: true, unpublished: true })).toBe(
      '`--published` and `--unpublished` cannot be used together.',
    );
  });

  it('show PAGE gets that page', async () => {
    expect(await h.run(pagesShow, { args: [PAGE] })).toBe(0);
    expect(h.request()).toEqual({ method: 'GET', path: pagePath, query: {} });
    expect(h.io.out()).toContain('slug\thome\n');
  });

  it('update --name --slug --publish: one PATCH with exactly those members', async () => {
    expect(await h.run(pagesUpdate, { args: [PAGE], name: 'Shop', slug: 'shop', publish: true })).toBe(0);
    expect(h.stub.requests).toHaveLength(1);
    expect(h.request()).toEqual({ method: 'PATCH', path: pagePath, query: {} });
    expect(h.body()).toEqual({ name: 'Shop', slug: 'shop', published: true });
  });

  it('update precedence: --file, then --set (typed, dotted, @file), then --name/--unpublish', async () => {
    writeFileSync(path.join(h.cwd, 'page.json'), JSON.stringify({ name: 'From file', bio: 'old', seo_title: 'T' }));
    writeFileSync(path.join(h.cwd, 'bio.txt'), 'Open 8 to 6');
    await h.run(pagesUpdate, {
      args: [PAGE],
      file: 'page.json',
      set: ['bio=@bio.txt', 'chat.greeting=Hi there', 'robots_index=false', 'seo_title=null', 'name=From set'],
      name: 'From flag',
      unpublish: true,
    });
    expect(h.body()).toEqual({
      name: 'From flag',
      bio: 'Open 8 to 6',
      seo_title: null,
      chat: { greeting: 'Hi there' },
      robots_index: false,
      published: false,
    });
  });

  it('update --set bio=@- reads standard input', async () => {
    await h.close();
    h = await seamHarness(() => record(stored), { io: fakeIO({ stdin: 'From stdin' }) });
    await h.run(pagesUpdate, { args: [PAGE], set: ['bio=@-'] });
    expect(h.body()).toEqual({ bio: 'From stdin' });
  });

  it('update refusals before any request: --publish with --unpublish, a --set without =, nothing to change', async () => {
    expect(await refused(pagesUpdate, { args: [PAGE], publish: true, unpublish: true })).toBe(
      '`--publish` and `--unpublish` cannot be used together.',
    );
    expect(await refused(pagesUpdate, { args: [PAGE], set: ['bio'] })).toBe('`--set` takes key=value; received `bio`.');
    expect(await refused(pagesUpdate, { args: [PAGE], set: ['chat=null', 'chat.greeting=Hi'] })).toBe(
      '`--set chat.greeting=…`: `chat` is already set to null, so it cannot hold `greeting`.',
    );
    expect(await refused(pagesUpdate, { args: [PAGE] })).toBe('Nothing to change.');
  });

  it('update on a terminal with no flags: gets the page, and when no answer changes it, sends no PATCH', async () => {
    const keep = <T>(o: { default?: T }) => Promise.resolve(o.default as T);
    const prompter: Partial<Prompter> = {
      input: keep as Prompter['input'],
      confirm: (o) => Promise.resolve(o.message === 'Published?' ? !!o.default : false),
      select: keep as Prompter['select'],
    };
    await h.close();
    h = await seamHarness(() => record(stored), { io: fakeIO({ tty: true, prompter }) });
    expect(await h.run(pagesUpdate, { args: [PAGE] })).toBe(0);
    expect(h.stub.requests.map((r) => r.method)).toEqual(['GET']);
    expect(h.io.err()).toContain('Nothing changed; nothing was sent.');
  });
});
