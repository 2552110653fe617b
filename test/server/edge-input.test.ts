// Bad input at every edge (docs/security.md, issue 33 finding 16): no 500, and an MCP tool's id
// argument can never make its path name another operation's route.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, toRequest, ToolArgumentError } from '../../src/mcp/tool-call.js';
import { buildTools, type ToolRequest } from '../../src/mcp/tools.js';
import { nestedDeeperThan } from '../../src/server/request.js';
import { demo, onPort } from '../support/server.js';

let server: Awaited<ReturnType<typeof onPort>>;
let client: Client;
beforeAll(async () => {
  server = await onPort();
  const transport = new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${demo.owner}` } },
  });
  client = new Client({ name: 'edge-test', version: '1.0.0' });
  await client.connect(transport);
});
afterAll(async () => {
  await client.close().catch(() => {});
  await server.close();
});

const MCP_HEADERS = {
  authorization: `Bearer ${demo.owner}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};
const deepArrays = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObjects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const call = (name: string, args: string) =>
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`;

describe('/mcp: deep nesting and an invalid Host are never a 500', () => {
  it.each([
    [
      '10,000 nested arrays in a tool body',
      call('createListing', `{"workspace":"${demo.ws1}","body":{"title":${deepArrays(10_000)}}}`),
    ],
    [
      '10,000 nested objects in a tool body',
      call('createListing', `{"workspace":"${demo.ws1}","body":${deepObjects(10_000)}}`),
    ],
    ['10,000 nested arrays as the whole message', deepArrays(10_000)],
    ['10,000 nested arrays as params', `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":${deepArrays(10_000)}}`],
  ])('%s: 400 JSON-RPC parse error naming the limit', async (_name, body) => {
    const res = await fetch(`${server.origin}/mcp`, { method: 'POST', headers: MCP_HEADERS, body });
    expect(res.status).toBe(400);
    const answer = await res.json();
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(answer.error.message).toContain('deeper than 64 levels');
  });

  it('a tool body nested as deep as the contract allows still works', async () => {
    const res = await fetch(`${server.origin}/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: call('getMe', '{}'),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).result.structuredContent.data.user.id).toBe('usr_ada');
  });

  it('nestedDeeperThan ignores brackets inside strings, escaped quotes included', () => {
    expect(nestedDeeperThan(Buffer.from(JSON.stringify({ a: '[[[[[[[[[[', b: 'x\\"[[[[[[' })), 3)).toBe(false);
    expect(nestedDeeperThan(Buffer.from('[[[[]]]]'), 3)).toBe(true);
    expect(nestedDeeperThan(Buffer.from('[[[]]]'), 3)).toBe(false);
  });

  it('an invalid Host on /mcp (with a valid token) is 421, not a 500', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          method: 'POST',
          path: '/mcp',
          headers: { ...MCP_HEADERS, host: 'x", error="injected' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(call('getMe', '{}'));
    });
    expect(status).toBe(421);
  });
});

describe('/_emulator/snapshots/: malformed percent-encoding', () => {
  it.each(['%', '%E0%A4%A', 'a%2', '%ZZ'])(
    'DELETE /_emulator/snapshots/%s is 400 naming the segment',
    async (segment) => {
      const res = await fetch(`${server.origin}/_emulator/snapshots/${segment}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${server.adminToken}` },
      });
      expect(res.status).toBe(400);
      const problem = await res.json();
      expect(problem).toMatchObject({ code: 'bad_request' });
      expect(problem.detail).toContain(segment);
    },
  );
});

describe('MCP tool ids are checked by their schema before a path is built', () => {
  it.each(['.', '..', '%2e', '%2E%2E', './', 'a/..', '../threads'])(
    'getThread {"thread": %j} is thread_not_found, never another route\'s data',
    async (thread) => {
      const r = await client.callTool({ name: 'getThread', arguments: { workspace: demo.ws1, thread } });
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toBeUndefined();
      const problem = JSON.parse((r.content as Array<{ text: string }>)[1].text);
      expect(problem).toMatchObject({
        status: 404,
        code: 'thread_not_found',
        detail: `No thread with id \`${thread}\`.`,
      });
    },
  );

  it('a "." workspace is workspace_not_found', async () => {
    const r = await client.callTool({ name: 'listThreads', arguments: { workspace: '.' } });
    expect(r.isError).toBe(true);
    expect(JSON.parse((r.content as Array<{ text: string }>)[1].text)).toMatchObject({
      status: 404,
      code: 'workspace_not_found',
    });
  });

  it('with listThreads disabled, getThread "." sends nothing at all', async () => {
    const tools = buildTools({ abilities: null, tools: ['getThread'] });
    expect(tools.map((t) => t.name)).toEqual(['getThread']);
    const sent: ToolRequest[] = [];
    const result = await callTool(
      tools[0],
      { workspace: demo.ws1, thread: '.' },
      async (req) => {
        sent.push(req);
        return { status: 200, body: { data: [] } };
      },
      undefined,
    );
    expect(sent).toEqual([]);
    expect(result.isError).toBe(true);
    expect(() => toRequest(tools[0].op, { workspace: demo.ws1, thread: '..' }, undefined)).toThrow(ToolArgumentError);
  });

  it('an upper-case id is still the same record (ids are normalized, not refused)', async () => {
    const r = await client.callTool({
      name: 'getThread',
      arguments: { workspace: demo.ws1.toUpperCase(), thread: demo.newestThread.toUpperCase() },
    });
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as { data: { id: string } }).data.id).toBe(demo.newestThread);
  });
});
