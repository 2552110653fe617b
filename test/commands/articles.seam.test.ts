// `wcm articles` through the run(options, factory) seam: arguments and flags become the request, bad
// ones are refused before any request. The same commands against the real server: articles.server.test.ts.
import { afterEach, expect, it } from 'vitest';
import articlesLs from '../../commands/articles/ls.js';
import articlesRestore from '../../commands/articles/restore.js';
import articlesShow from '../../commands/articles/show.js';
import { UsageError } from '../../src/cli/errors.js';
import { SEAM_WS, record, seamHarness, type SeamHarness } from './harness.js';

const LIST = '34245e7c-3e2f-40d4-838c-7d330fa624ba';
const ARTICLE = 'c8662610-465b-432d-bc0c-117f751f478a';
const base = `/workspaces/${SEAM_WS}/knowledge-lists/${LIST}/articles`;
const version = (number: number, published: boolean) => ({
  id: `0000000${number}-0000-4000-8000-000000000000`,
  number,
  title: `Title v${number}`,
  published,
  restored_from: number === 3 ? 1 : null,
  created_at: '2026-11-01T10:00:00.000Z',
});
const article = {
  id: ARTICLE,
  title: 'Title v3',
  status: 'published',
  current_version: 3,
  published_version: 3,
  versions: [version(1, false), version(2, false), version(3, true)],
};

let h: SeamHarness;
afterEach(() => h.close());

it('ls LIST lists the articles of that knowledge list in the workspace; no flags, no query', async () => {
  h = await seamHarness();
  expect(await h.run(articlesLs, { args: [LIST] })).toBe(0);
  expect(h.stub.requests).toHaveLength(1);
  expect(h.request()).toEqual({ method: 'GET', path: base, query: {} });
});

it('ls --limit and --cursor pass through; --all asks for pages of 100 and follows next_cursor to the end', async () => {
  h = await seamHarness((req) => ({
    status: 200,
    body: { data: [], meta: { request_id: 'r', next_cursor: req.url.includes('cursor=p2') ? null : 'p2' } },
  }));
  await h.run(articlesLs, { args: [LIST], limit: '5', cursor: 'p1' });
  expect(h.request(0).query).toEqual({ limit: '5', cursor: 'p1' });
  await h.run(articlesLs, { args: [LIST], all: true });
  expect(h.stub.requests).toHaveLength(3);
  expect(h.request(1).query).toEqual({ limit: '100' });
  expect(h.request(2)).toEqual({ method: 'GET', path: base, query: { limit: '100', cursor: 'p2' } });
});

it('ls --limit 0 is a usage error naming the flag and the range, and nothing is sent', async () => {
  h = await seamHarness();
  const err = await h.run(articlesLs, { args: [LIST], limit: '0' }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UsageError);
  expect((err as Error).message).toBe('`--limit` must be an integer from 1 to 100; received `0`.');
  expect(h.stub.requests).toHaveLength(0);
});

it('ls --json with a field articles do not have is refused before the request, naming the field', async () => {
  h = await seamHarness();
  const err = await h.run(articlesLs, { args: [LIST] }, { json: true, jsonFields: ['titel'] }).catch((e) => e);
  expect(err).toBeInstanceOf(UsageError);
  expect((err as Error).message).toBe('`titel` is not a field of `listArticles` (in `--json`).');
  expect(h.stub.requests).toHaveLength(0);
});

it('show LIST ARTICLE gets that article; piped, one row per version, oldest first', async () => {
  h = await seamHarness(() => record(article));
  expect(await h.run(articlesShow, { args: [LIST, ARTICLE] })).toBe(0);
  expect(h.request()).toEqual({ method: 'GET', path: `${base}/${ARTICLE}`, query: {} });
  expect(h.io.out().split('\n')[0]).toBe('1\tfalse\t\t2026-11-01T10:00:00.000Z\tTitle v1');
  expect(h.io.out().split('\n')[2]).toBe('3\ttrue\t1\t2026-11-01T10:00:00.000Z\tTitle v3');
});

it('restore LIST ARTICLE VERSION posts {publish: false} to that version; --publish sends true', async () => {
  const restored = { article: { ...article, current_version: 4 }, version: { ...version(4, false), restored_from: 2 } };
  h = await seamHarness(() => record(restored));
  expect(await h.run(articlesRestore, { args: [LIST, ARTICLE, '2'] })).toBe(0);
  expect(h.request()).toEqual({ method: 'POST', path: `${base}/${ARTICLE}/versions/2/restore`, query: {} });
  expect(h.body()).toEqual({ publish: false });
  await h.run(articlesRestore, { args: [LIST, ARTICLE, '2'], publish: true });
  expect(h.body(1)).toEqual({ publish: true });
  expect(h.io.out()).toContain('version\t4\n');
});

it('restore with a workspace that is not a UUID is a usage error naming where it came from; nothing is sent', async () => {
  h = await seamHarness(undefined, { env: { WCM_WORKSPACE: 'acme' } });
  const err = await h.run(articlesRestore, { args: [LIST, ARTICLE, '2'] }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UsageError);
  expect((err as Error).message).toBe(
    'The workspace (from WCM_WORKSPACE) must be a workspace id (a UUID); received `acme`.',
  );
  expect(h.stub.requests).toHaveLength(0);
});
