// U+0000 (NUL) in text the server is given (issue 47, item 6): PostgreSQL's text cannot hold it, so a
// forged cursor whose key held NUL was a 500 there (and a 200 on the JSON store). Now a cursor key
// with NUL is 400 invalid_cursor, and NUL in any path, query or body text of an operation is 400
// bad_request naming the field, on both stores alike (the postgres project runs this file again).
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eng, writeEngagementFixture } from '../support/engagement.js';
import { expectProblem } from '../support/problem.js';
import { demo, DEMO, inProcess, tempDir, type InProcess } from '../support/server.js';

let s: InProcess;
let fixtures: ReturnType<typeof tempDir>;
beforeAll(async () => {
  fixtures = tempDir();
  s = await inProcess({ fixtures: [DEMO, writeEngagementFixture(fixtures.dir)] });
});
afterAll(async () => {
  await s.close();
  fixtures.cleanup();
});

const threads = `/v1/workspaces/${eng.wsA}/threads`;

/** A cursor re-made with another key, its check computed as anyone can (it guards against mistakes, not forgery). */
function forged(cursor: string, scope: string, edit: (key: unknown[]) => unknown[]): string {
  const [key] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [unknown[], string];
  const next = edit(key);
  const check = createHash('sha256').update(scope).update(JSON.stringify(next)).digest('base64url').slice(0, 10);
  return Buffer.from(JSON.stringify([next, check])).toString('base64url');
}

describe('a forged thread cursor whose key holds U+0000', () => {
  it('is 400 invalid_cursor, where a forged cursor without NUL pages on', async () => {
    const first = await s.request({ url: `${threads}?limit=2`, token: eng.token });
    const cursor = first.json.meta.next_cursor as string;
    const scope = JSON.stringify(['threads', eng.wsA, 'inbox', null, null]);
    // The forgery is accepted as a cursor (same list, a key of the right shape): only NUL is refused.
    const plain = forged(cursor, scope, ([at, id]) => [at, `${String(id)}x`]);
    expect((await s.request({ url: `${threads}?limit=2&cursor=${plain}`, token: eng.token })).status).toBe(200);
    for (const edit of [([at, id]: unknown[]) => [at, `${String(id)}\u0000`], ([, id]: unknown[]) => ['\u0000', id]]) {
      const res = await s.request({
        url: `${threads}?limit=2&cursor=${forged(cursor, scope, edit)}`,
        token: eng.token,
      });
      expectProblem(res, 400, 'invalid_cursor');
      expect(res.json.errors).toEqual({ cursor: ['Invalid cursor.'] });
    }
  });
});

describe('U+0000 in a text parameter', () => {
  it.each([
    ['a query parameter', `${threads}?q=a%00b`, 'q'],
    [
      'a query parameter that is not text to the schema',
      `/v1/workspaces/${demo.ws1}/bookings?from=2026-01-01%00`,
      'from',
    ],
    ['a path parameter', `/v1/workspaces/${demo.ws1}/lists/a%00b`, 'list'],
    ['the workspace in the path', `/v1/workspaces/a%00b/lists`, 'workspace'],
  ])('%s is 400 bad_request naming it', async (_, url, field) => {
    const res = await s.request({ url, token: url.startsWith(threads) ? eng.token : demo.owner });
    const body = expectProblem(res, 400, 'bad_request');
    expect(body.errors).toEqual({ [field]: ['Must not contain U+0000 (NUL).'] });
  });

  it.each([
    ['a body string', { title: 'a\u0000b', template_slug: 'faq' }, 'title'],
    [
      'a string deep in the body',
      { title: 'ok', template_slug: 'faq', items: [{ question: 'q', answer: '\u0000' }] },
      'items.0.answer',
    ],
    ['a body key', { title: 'ok', template_slug: 'faq', 'x\u0000': 1 }, '(body)'],
  ])('%s is 400 bad_request naming it, and nothing is written', async (_, json, field) => {
    const url = `/v1/workspaces/${demo.ws1}/lists`;
    const before = (await s.request({ url: `${url}?limit=100`, token: demo.owner })).json.data.length;
    const res = await s.request({ method: 'POST', url, token: demo.owner, json });
    const body = expectProblem(res, 400, 'bad_request');
    expect(body.errors).toEqual({ [field]: ['Must not contain U+0000 (NUL).'] });
    expect((await s.request({ url: `${url}?limit=100`, token: demo.owner })).json.data.length).toBe(before);
  });

  it('an escaped backslash before `u0000` is text, not NUL: the body is taken', async () => {
    const res = await s.request({
      method: 'POST',
      url: `/v1/workspaces/${demo.ws1}/lists`,
      token: demo.owner,
      json: { title: 'a\\u0000b', template_slug: 'faq' },
    });
    expect(res.status).toBe(201);
    expect(res.json.data.title).toBe('a\\u0000b');
  });
});
