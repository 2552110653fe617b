import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fastToolCall, splitEnvelope } from '../../src/mcp/server.js';
import { buildTools, callTool, type ToolRequest } from '../../src/mcp/tools.js';
import { demo, inProcess, type InProcess } from '../support/server.js';

// /mcp answers a plain `tools/call` itself instead of building an SDK server per request. Its
// answer must be what the SDK path answers: the JSON-RPC envelope around callTool's result.
let s: InProcess;
beforeAll(async () => {
  s = await inProcess();
});
afterAll(() => s.close());

const filter = { abilities: null, defaultWorkspace: demo.ws1 };
const tools = buildTools(filter);
const dispatchRaw = async (r: ToolRequest) => {
  const qs = new URLSearchParams(r.query).toString();
  const res = await s.app.handle({
    method: r.method, url: `/v1${r.path}${qs ? `?${qs}` : ''}`,
    headers: { host: 'x', 'content-type': 'application/json', authorization: `Bearer ${demo.owner}` },
    body: r.body === undefined ? undefined : JSON.stringify(r.body),
  });
  return { status: res.status, text: res.body };
};
const dispatch = async (r: ToolRequest) => {
  const { status, text } = await dispatchRaw(r);
  return { status, body: text ? JSON.parse(text) : null };
};
const HEADERS = { accept: 'application/json, text/event-stream', contentType: 'application/json', protocolVersion: '2025-06-18' };
const call = (name: string, args: unknown, id: unknown = 7, headers = HEADERS) =>
  fastToolCall(headers, { jsonrpc: '2.0', ...(id === null ? {} : { id }), method: 'tools/call', params: { name, arguments: args } }, tools, filter, dispatchRaw);
/** Each dispatch has its own request id; the rest must be equal. */
const sameIds = (v: unknown) => JSON.parse(JSON.stringify(v).replace(/req_[A-Za-z0-9]{20}/g, 'req_X'));

describe('/mcp fast tools/call', () => {
  it.each([
    ['a list page', 'listThreads', { view: 'inbox', limit: 2 }],
    ['one record', 'getMe', {}],
    ['a 404 from the API', 'getPage', { page: '00000000-0000-4000-8000-000000000000' }],
    ['a bad argument', 'listThreads', { nope: 1 }],
    ['a list with a query the API refuses', 'listThreads', { view: 'sideways' }],
  ])('%s: the same result the SDK handler returns, in a JSON-RPC response with the id', async (_label, name, args) => {
    const fast = await call(name, args);
    expect(fast).not.toBeNull();
    const tool = tools.find((t) => t.name === name)!;
    const expected = await callTool(tool, args as Record<string, unknown>, dispatch, filter.defaultWorkspace);
    const parsed = JSON.parse(fast!);
    expect(sameIds(parsed)).toEqual(sameIds({ jsonrpc: '2.0', id: 7, result: expected }));
    // The text content is the structured content, as JSON.
    if (!parsed.result.isError) expect(JSON.parse(parsed.result.content[0].text)).toEqual(parsed.result.structuredContent);
  });

  it.each([
    ['Accept without text/event-stream', { ...HEADERS, accept: 'application/json' }, 'listThreads', 1],
    ['an unsupported protocol version', { ...HEADERS, protocolVersion: '1999-01-01' }, 'listThreads', 1],
    ['a notification (no id)', HEADERS, 'listThreads', null],
    ['an unknown tool', HEADERS, 'noSuchTool', 1],
  ])('leaves %s to the SDK (null)', async (_label, headers, name, id) => {
    expect(await call(name, {}, id, headers)).toBeNull();
  });

  it('splitEnvelope takes the data of our envelope, whose meta is last, and refuses anything else', () => {
    expect(splitEnvelope('{"data":[{"meta":{"x":1}}],"meta":{"request_id":"r","next_cursor":"c"}}')).toEqual({ data: '[{"meta":{"x":1}}]', nextCursor: 'c' });
    expect(splitEnvelope('{"data":{"id":"a"},"meta":{"request_id":"r"}}')).toEqual({ data: '{"id":"a"}', nextCursor: null });
    expect(splitEnvelope('{"meta":{},"data":[]}')).toBeNull();
    expect(splitEnvelope('{"data":[],"meta":{broken}')).toBeNull();
  });
});
