import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fastToolCall, parsedDispatch, splitEnvelope } from '../../src/mcp/fast-call.js';
import { callTool } from '../../src/mcp/tool-call.js';
import { buildTools, type ToolRequest } from '../../src/mcp/tools.js';
import { inProcessDispatch } from '../../src/server/mcp/mount.js';
import { JsonItem } from '../../src/server/paging.js';
import { App } from '../../src/server/app.js';
import { demo, inProcess, type InProcess } from '../support/server.js';

// /mcp answers a plain `tools/call` itself instead of building an SDK server per request. Its
// answer must be what the SDK path answers: the JSON-RPC envelope around callTool's result.
let s: InProcess;
let app: App;
beforeAll(async () => {
  // On the postgres project inProcess's engine is PostgreSQL's, loaded with the demo.
  s = await inProcess();
  app = s.app;
});
afterAll(() => s.close());

const filter = { abilities: null, defaultWorkspace: demo.ws1 };
const tools = buildTools(filter);
// The dispatch /mcp itself uses, with the owner's token.
const dispatchRaw = (r: ToolRequest) =>
  inProcessDispatch(app, {
    headers: { host: 'localhost', authorization: `Bearer ${demo.owner}` },
    remoteAddress: '127.0.0.1',
  })(r);
const dispatch = parsedDispatch(dispatchRaw);
const HEADERS = {
  accept: 'application/json, text/event-stream',
  contentType: 'application/json',
  protocolVersion: '2025-06-18',
};
const call = (name: string, args: unknown, id: unknown = 7, headers = HEADERS) =>
  fastToolCall(
    headers,
    { jsonrpc: '2.0', ...(id === null ? {} : { id }), method: 'tools/call', params: { name, arguments: args } },
    tools,
    filter,
    dispatchRaw,
  );
/** The answer as text, whichever form it came in. */
const text = (a: string | Buffer[] | null): string =>
  a === null ? 'null' : typeof a === 'string' ? a : Buffer.concat(a).toString('utf8');
/** Each dispatch has its own request id; the rest must be equal. */
const sameIds = (v: unknown) => JSON.parse(JSON.stringify(v).replace(/req_[A-Za-z0-9]{20}/g, 'req_X'));

describe('/mcp fast tools/call', () => {
  it.each([
    ['a list page', 'listThreads', { view: 'inbox', limit: 2 }],
    ['a list page of cached items (assembled from bytes)', 'listPages', { limit: 3 }],
    ['one record', 'getMe', {}],
    ['a 404 from the API', 'getPage', { page: '00000000-0000-4000-8000-000000000000' }],
    ['a bad argument', 'listThreads', { nope: 1 }],
    ['a list with a query the API refuses', 'listThreads', { view: 'sideways' }],
  ])('%s: the same result the SDK handler returns, in a JSON-RPC response with the id', async (_label, name, args) => {
    const fast = await call(name, args);
    expect(fast).not.toBeNull();
    const tool = tools.find((t) => t.name === name)!;
    const expected = await callTool(tool, args as Record<string, unknown>, dispatch, filter.defaultWorkspace);
    const parsed = JSON.parse(text(fast));
    expect(sameIds(parsed)).toEqual(sameIds({ jsonrpc: '2.0', id: 7, result: expected }));
    // The text content is the structured content, as JSON.
    if (!parsed.result.isError)
      expect(JSON.parse(parsed.result.content[0].text)).toEqual(parsed.result.structuredContent);
  });

  it.each([
    ['Accept without text/event-stream', { ...HEADERS, accept: 'application/json' }, 'listThreads', 1],
    ['an unsupported protocol version', { ...HEADERS, protocolVersion: '1999-01-01' }, 'listThreads', 1],
    ['a notification (no id)', HEADERS, 'listThreads', null],
    ['an unknown tool', HEADERS, 'noSuchTool', 1],
  ])('leaves %s to the SDK (null)', async (_label, headers, name, id) => {
    expect(await call(name, {}, id, headers)).toBeNull();
  });

  it('a page whose text needs escaping (quotes, backslashes, newlines, non-ASCII, U+2028) comes back as the SDK path serializes it', async () => {
    const first = JSON.parse(text(await call('listPages', { limit: 1 }))).result.structuredContent.data[0];
    const name = 'Zoë\'s "FAQ" \\ C:\\path\t🎉 \u2028 end';
    const updated = JSON.parse(text(await call('updatePage', { page: first.id, body: { name } })));
    expect(updated.result.structuredContent.data.name).toBe(name);
    const fast = await call('listPages', { limit: 2 });
    expect(Array.isArray(fast)).toBe(true); // the byte-parts path, not the text one
    const expected = await callTool(
      tools.find((t) => t.name === 'listPages')!,
      { limit: 2 },
      dispatch,
      filter.defaultWorkspace,
    );
    // Byte for byte what JSON.stringify makes of the SDK path's result.
    expect(text(fast).replace(/req_[A-Za-z0-9]{20}/g, 'req_X')).toBe(
      JSON.stringify({ result: expected, jsonrpc: '2.0', id: 7 }).replace(/req_[A-Za-z0-9]{20}/g, 'req_X'),
    );
    expect(JSON.parse(text(fast)).result.structuredContent.data[0].name).toBe(name);
  });

  it('arguments reach /v1 as given: reserved characters in a path id and in a query value are encoded, not read as syntax', async () => {
    // An id with / ? # names no page (404 quoting the id whole), not another route.
    const page = JSON.parse(text(await call('getPage', { page: 'a/b?c#d %' })));
    expect(page.result.isError).toBe(true);
    // A failed call carries the problem+json as its second text (no structuredContent: docs/mcp.md).
    expect(page.result.structuredContent).toBeUndefined();
    expect(JSON.parse(page.result.content[1].text)).toMatchObject({
      status: 404,
      code: 'page_not_found',
      detail: 'No page with id `a/b?c#d %`.',
    });
    // `&limit=…` inside view stays inside view: only view is refused, limit (2) is fine.
    const list = JSON.parse(text(await call('listThreads', { view: 'inbox&limit=oops', limit: 2 })));
    const problem = JSON.parse(list.result.content[1].text);
    expect(problem).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(Object.keys(problem.errors)).toEqual(['view']);
    // A valid value given as a string is served as the API would serve it.
    const ok = JSON.parse(text(await call('listThreads', { view: 'inbox', limit: '2' })));
    expect(ok.result.structuredContent.data).toHaveLength(2);
  });

  it('JsonItem.quotedBytes is the text as JSON.stringify escapes it, without the quotes', () => {
    for (const t of ['{"a":"b\\"c"}', '{"s":"\\n\\u0000 é 🎉 \u2028"}', '[]']) {
      const item = new JsonItem(t);
      expect(item.quotedBytes.toString('utf8')).toBe(JSON.stringify(t).slice(1, -1));
      expect(item.quotedBytes).toBe(item.quotedBytes); // computed once
    }
  });

  it('splitEnvelope takes the data of our envelope, whose meta is last, and refuses anything else', () => {
    expect(splitEnvelope('{"data":[{"meta":{"x":1}}],"meta":{"request_id":"r","next_cursor":"c"}}')).toEqual({
      data: '[{"meta":{"x":1}}]',
      nextCursor: 'c',
    });
    expect(splitEnvelope('{"data":{"id":"a"},"meta":{"request_id":"r"}}')).toEqual({
      data: '{"id":"a"}',
      nextCursor: null,
    });
    expect(splitEnvelope('{"meta":{},"data":[]}')).toBeNull();
    expect(splitEnvelope('{"data":[],"meta":{broken}')).toBeNull();
  });
});
