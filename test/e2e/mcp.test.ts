// MCP (docs/mcp.md) with the SDK's own Client: against the real `wcm mcp` process over stdio, and
// against the real server's /mcp over Streamable HTTP, including an agent's whole OAuth path;
// and with an outside client, @modelcontextprotocol/inspector 1.0.3 in CLI mode (fetched on first use,
// test/support/inspector.mjs, and run on Node 22, its supported runtime; `wcm mcp` stays on Node 20).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, LoggingMessageNotificationSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { execa } from 'execa';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../support/cli.js';
import { INSPECTOR_CLI, inspector as installInspector } from '../support/inspector.mjs';
import { node22 } from '../support/node22.mjs';
import { authorizeUrl, FormBrowser, pkce, tokenRequest } from '../support/oauth.js';
import { demo, onPort, tempDir } from '../support/server.js';

let server: Awaited<ReturnType<typeof onPort>>;
let origin: string;
let cfg: ReturnType<typeof tempDir>;
beforeAll(async () => {
  server = await onPort();
  origin = new URL(server.url).origin;
  cfg = tempDir('wcm-mcp-');
});
afterAll(async () => {
  await server.close();
  cfg.cleanup();
});

const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
});

/** The SDK client on the real `wcm mcp` process. */
async function stdio(token: string, args: string[] = [], workspace: string | undefined = demo.ws1): Promise<Client> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    WCM_CONFIG_DIR: cfg.dir,
    WCM_BASE_URL: server.url,
    WCM_TOKEN: token,
    NO_COLOR: '1',
    CI: 'true',
  };
  if (workspace) env.WCM_WORKSPACE = workspace;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'wcm-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/**
 * One `wcm mcp` process per token for the checks run over both transports: starting one is most of
 * such a check's cost, and these checks change nothing in a session (no log level, no handler).
 */
const stdioSessions = new Map<string, Promise<Client>>();
function sharedStdio(token: string): Promise<Client> {
  let session = stdioSessions.get(token);
  if (!session) stdioSessions.set(token, (session = stdio(token)));
  return session;
}

/** The SDK client on the real server's /mcp. */
async function http(token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'wcm-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name).sort();
type Structured = { data: any; next_cursor: string | null };
type Problem = { code: string; status: number; errors?: Record<string, string[]> };
/** A failed call's problem+json: its second text; it has no structuredContent (docs/mcp.md). */
function problemOf(r: Awaited<ReturnType<Client['callTool']>>): Problem {
  expect(r.isError).toBe(true);
  expect(r.structuredContent).toBeUndefined();
  return JSON.parse((r.content as Array<{ text: string }>)[1].text) as Problem;
}

describe.each([
  ['stdio (wcm mcp)', (token: string) => sharedStdio(token)],
  ['Streamable HTTP (/mcp)', (token: string) => http(token)],
])('over %s', (_, connect) => {
  it('tools/list: one tool per operation the token may use, named by operationId, with schemas and annotations', async () => {
    const c = await connect(demo.owner);
    const { tools } = await c.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.has('receivePaymentNotification')).toBe(false);
    for (const n of ['listThreads', 'createListing', 'getListing', 'createPaymentIntent'])
      expect(byName.has(n), n).toBe(true);
    // Grant and application management is for personal tokens and the dashboard only (docs/security.md#oauth).
    for (const n of ['listOAuthGrants', 'revokeOAuthGrant', 'listOAuthApps', 'createOAuthApp', 'deleteOAuthApp'])
      expect(byName.has(n), n).toBe(false);
    const refused = await c
      .callTool({ name: 'revokeOAuthGrant', arguments: { grant: demo.grantAda } })
      .catch((err: unknown) => err);
    expect(refused instanceof McpError || (refused as { isError?: boolean }).isError).toBe(true);
    const lt = byName.get('listThreads')!;
    // No destructiveHint beside readOnlyHint: true, where MCP gives it no meaning (bytes an agent pays for).
    expect(lt.annotations).toEqual({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    expect(Object.keys(lt.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['workspace', 'view', 'channel', 'q', 'cursor', 'limit']),
    );
    expect(lt.outputSchema?.properties).toHaveProperty('next_cursor');
    expect(byName.get('createListing')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.get('createPaymentIntent')!.annotations).toMatchObject({ openWorldHint: true, idempotentHint: true });
    expect(byName.get('createPaymentIntent')!.inputSchema.properties).toHaveProperty('idempotency_key');

    // A content reader sees no engagement and no write tools.
    const reader = await names(await connect(demo.contentReader));
    expect(reader).toContain('listListings');
    expect(reader).not.toContain('listThreads');
    expect(reader).not.toContain('createListing');
  });

  it('a read pages with next_cursor exactly as the API does', async () => {
    const c = await connect(demo.owner);
    const first = await c.callTool({ name: 'listThreads', arguments: { workspace: demo.ws1, limit: 3 } });
    const s1 = first.structuredContent as Structured;
    expect(first.isError).toBeFalsy();
    expect(s1.data).toHaveLength(3);
    expect(s1.next_cursor).toEqual(expect.any(String));
    expect(JSON.parse((first.content as Array<{ text: string }>)[0].text)).toEqual(s1);
    const second = (
      await c.callTool({ name: 'listThreads', arguments: { workspace: demo.ws1, limit: 3, cursor: s1.next_cursor } })
    ).structuredContent as Structured;
    const api = await (
      await fetch(
        `${server.url}/workspaces/${demo.ws1}/threads?limit=3&cursor=${encodeURIComponent(s1.next_cursor!)}`,
        { headers: { authorization: `Bearer ${demo.owner}` } },
      )
    ).json();
    expect(second.data.map((t: { id: string }) => t.id)).toEqual(api.data.map((t: { id: string }) => t.id));
  });

  it('a create that /v1 then serves', async () => {
    const c = await connect(demo.owner);
    const r = await c.callTool({
      name: 'createListing',
      arguments: {
        workspace: demo.ws1,
        body: { title: `From MCP ${Math.random()}`, template_slug: 'faq', items: [{ title: 'Q?' }] },
      },
    });
    expect(r.isError).toBeFalsy();
    const created = (r.structuredContent as Structured).data;
    const api = await fetch(`${server.url}/workspaces/${demo.ws1}/lists/${created.id}`, {
      headers: { authorization: `Bearer ${demo.owner}` },
    });
    expect(api.status).toBe(200);
    expect((await api.json()).data.title).toBe(created.title);
  });

  it('a validation error is a tool error naming the field; nothing is created', async () => {
    const c = await connect(demo.owner);
    const listings = () => server.db.read((tx) => tx.count('listings', 'listingsByWorkspace', demo.ws1));
    const before = await listings();
    const r = await c.callTool({
      name: 'createListing',
      arguments: { workspace: demo.ws1, body: { title: '', template_slug: 'faq' } },
    });
    const p = problemOf(r);
    expect(p.code).toBe('validation_failed');
    expect(Object.keys(p.errors!)).toContain('title');
    expect((r.content as Array<{ text: string }>)[0].text).toContain('title');
    expect(await listings()).toBe(before);
  });

  it('a 403 is a tool error with the problem: another workspace, and a hidden tool called anyway', async () => {
    const c = await connect(demo.owner);
    const r = await c.callTool({ name: 'listListings', arguments: { workspace: demo.ws3 } });
    expect(problemOf(r).code).toBe('not_a_member');
    const reader = await connect(demo.contentReader);
    const hidden = await reader.callTool({ name: 'listThreads', arguments: { workspace: demo.ws1 } });
    expect(problemOf(hidden).code).toBe('insufficient_ability');
    await expect(reader.callTool({ name: 'noSuchTool', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it('an unknown tool or resource is a JSON-RPC -32602 whose message the client prefixes once, not twice', async () => {
    const c = await connect(demo.owner);
    const tool = await c.callTool({ name: 'noSuchTool', arguments: {} }).then(
      () => null,
      (e: McpError) => e,
    );
    const resource = await c.readResource({ uri: 'wcm://nowhere/1' }).then(
      () => null,
      (e: McpError) => e,
    );
    for (const err of [tool, resource]) {
      expect(err).toBeInstanceOf(McpError);
      expect(err!.code).toBe(-32602);
      expect(err!.message).toMatch(/^MCP error -32602: Unknown (tool `noSuchTool`|resource `wcm:\/\/nowhere\/1`)/);
      expect(err!.message.match(/MCP error/g)).toHaveLength(1);
    }
  });

  it("completion/complete offers the ids of the token's workspaces, threads and pages that match what was typed", async () => {
    const c = await connect(demo.owner);
    const threads = 'wcm://workspaces/{workspace}/threads/{thread}';
    const workspaces = await c.complete({
      ref: { type: 'ref/resource', uri: threads },
      argument: { name: 'workspace', value: '' },
    });
    // Ada is a member of Acme Coffee and Blue Fern Studio, not of Civic Help Desk.
    expect(workspaces.completion.values.sort()).toEqual([demo.ws1, demo.ws2].sort());
    const byName = await c.complete({
      ref: { type: 'ref/resource', uri: threads },
      argument: { name: 'workspace', value: 'blue fern' },
    });
    expect(byName.completion.values).toEqual([demo.ws2]);
    const thread = await c.complete({
      ref: { type: 'ref/resource', uri: threads },
      argument: { name: 'thread', value: demo.newestThread.slice(0, 6) },
      context: { arguments: { workspace: demo.ws1 } },
    });
    expect(thread.completion.values).toEqual([demo.newestThread]);
    const page = await c.complete({
      ref: { type: 'ref/resource', uri: 'wcm://workspaces/{workspace}/pages/{page}' },
      argument: { name: 'page', value: demo.pageAcme.slice(0, 8) },
      context: { arguments: { workspace: demo.ws1 } },
    });
    expect(page.completion.values).toEqual([demo.pageAcme]);
    // Another workspace's threads: nothing (the API refuses the listing).
    const other = await c.complete({
      ref: { type: 'ref/resource', uri: threads },
      argument: { name: 'thread', value: '' },
      context: { arguments: { workspace: demo.ws3 } },
    });
    expect(other.completion).toMatchObject({ values: [], total: 0 });
  });

  it('malformed tools/call params are JSON-RPC -32602 naming the member (not -32603 with a schema dump); the session goes on', async () => {
    const c = await connect(demo.owner);
    const cases: Array<[unknown, string]> = [
      [
        { name: 'getMe', arguments: [1] },
        "`params.arguments` must be an object of the tool's named arguments (or left out), not an array.",
      ],
      [{ name: 'getMe', arguments: 'workspace=x' }, 'not a string.'],
      [{ name: 'getMe', arguments: null }, 'not null.'],
      [{ arguments: {} }, '`params.name` must be the name of a tool (a string)'],
    ];
    for (const [params, says] of cases) {
      const err = await c.request({ method: 'tools/call', params } as never, CallToolResultSchema).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, JSON.stringify(params)).toBeInstanceOf(McpError);
      expect((err as McpError).code).toBe(-32602);
      expect((err as McpError).message).toContain(says);
    }
    expect((await c.callTool({ name: 'getMe' })).structuredContent).toMatchObject({
      data: { user: { id: 'usr_ada' } },
    });
  });

  it('threads and pages are resources', async () => {
    const c = await connect(demo.owner);
    const templates = (await c.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toEqual([
      'wcm://workspaces/{workspace}/threads/{thread}',
      'wcm://workspaces/{workspace}/pages/{page}',
    ]);
    const thread = await c.readResource({ uri: `wcm://workspaces/${demo.ws1}/threads/${demo.newestThread}` });
    expect(JSON.parse((thread.contents[0] as { text: string }).text).subject).toBe('Large order for Friday');
  });
});

describe('wcm mcp flags', () => {
  it.each<[string[], (n: string[]) => void]>([
    [['--read-only'], (n) => expect(n.every((x) => /^(get|list)/.test(x))).toBe(true)],
    [['--tools', 'listThreads,getThread'], (n) => expect(n).toEqual(['getThread', 'listThreads'])],
    [['--toolsets', 'conversations'], (n) => expect(n).toEqual(['getThread', 'listThreads'])],
  ])('%j narrows tools/list', async (args, check) => {
    check(await names(await stdio(demo.owner, args)));
  });

  it("a tool left out by a flag is refused as not enabled; the default workspace is the profile's", async () => {
    const c = await stdio(demo.owner, ['--read-only']);
    const r = await c.callTool({ name: 'createListing', arguments: { body: { title: 'x', template_slug: 'faq' } } });
    expect(problemOf(r).code).toBe('tool_not_enabled');
    const ls = await c.callTool({ name: 'listListings', arguments: {} });
    expect(ls.isError).toBeFalsy();
  });

  it('logging/setLevel: each tool call then logs its operation, status and request id at info', async () => {
    const c = await stdio(demo.owner);
    const lines: unknown[] = [];
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void lines.push(n.params));
    await c.callTool({ name: 'getMe', arguments: {} });
    expect(lines).toEqual([]); // nothing until a level is set
    await c.setLoggingLevel('info');
    await c.callTool({ name: 'listThreads', arguments: { limit: 1 } });
    await c.callTool({ name: 'getPage', arguments: { page: '00000000-0000-4000-8000-000000000000' } });
    await c.setLoggingLevel('warning');
    await c.callTool({ name: 'getMe', arguments: {} });
    expect(lines).toEqual([
      { level: 'info', logger: 'wcm', data: expect.stringMatching(/^listThreads 200 req_\w+$/) },
      { level: 'info', logger: 'wcm', data: expect.stringMatching(/^getPage 404 req_\w+$/) },
    ]);
  });

  it('a script that pipes its requests and closes stdin gets every answer before wcm mcp exits', async () => {
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'listThreads', arguments: { limit: 1 } } },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'getMe', arguments: {} } },
    ];
    const r = await execa(process.execPath, [BIN, 'mcp'], {
      reject: false,
      timeout: 30_000,
      input: messages.map((m) => JSON.stringify(m)).join('\n') + '\n',
      env: { WCM_CONFIG_DIR: cfg.dir, WCM_BASE_URL: server.url, WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws1 },
    });
    expect(r.exitCode).toBe(0);
    const answers = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3]);
    expect(answers[1].result.structuredContent.data).toHaveLength(1);
    expect(answers[2].result.structuredContent.data.user.id).toBe('usr_ada');
  });

  it('bad flags are a usage error (exit 2) before anything is served', async () => {
    const r = await execa(process.execPath, [BIN, 'mcp', '--tools', 'nope'], {
      reject: false,
      env: { WCM_CONFIG_DIR: cfg.dir, WCM_BASE_URL: server.url, WCM_TOKEN: demo.owner },
      input: '',
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('`--tools`');
    expect(r.stdout).toBe('');
  });
});

describe('/mcp as an OAuth resource', () => {
  it('no token, or an API-audience OAuth token: 401 naming the MCP resource metadata', async () => {
    for (const auth of [undefined, `Bearer ${demo.oauthBlueFernOnly}`, `Bearer ${demo.oauthRevokedGrant}`]) {
      const res = await fetch(`${origin}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(auth ? { authorization: auth } : {}),
        },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain(
        `resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
      );
    }
  });

  it('a wcm-mcp token granted one workspace: that workspace is the default, another is not_a_member', async () => {
    const c = await http(demo.oauthMcp);
    const own = await c.callTool({ name: 'listListings', arguments: {} });
    expect(own.isError).toBeFalsy();
    const other = await c.callTool({ name: 'listListings', arguments: { workspace: demo.ws2 } });
    expect(problemOf(other).code).toBe('not_a_member');
  });

  it("an agent's whole path: 401 → metadata → dynamic registration → consent with PKCE → token for /mcp → tools", async () => {
    const first = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(first.headers.get('www-authenticate')!)![1];
    const resource = await (await fetch(metadataUrl)).json();
    expect(resource.resource).toBe(`${origin}/mcp`);
    const as = await (
      await fetch(`${resource.authorization_servers[0]}/.well-known/oauth-authorization-server`)
    ).json();
    const redirect = 'http://127.0.0.1:6274/oauth/callback';
    const reg = await (
      await fetch(as.registration_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Test agent', redirect_uris: [redirect] }),
      })
    ).json();
    const { verifier, challenge } = pkce();
    const browser = new FormBrowser(origin);
    const signIn = await browser.follow(
      authorizeUrl(origin, {
        response_type: 'code',
        client_id: reg.client_id,
        redirect_uri: redirect,
        scope: 'content:read engagements:read',
        state: 'a',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        resource: resource.resource,
      }),
    );
    const consent = await browser.chooseAccount(signIn, 'usr_ada');
    const code = new URL(
      (await browser.decide(consent.body, 'approve', [demo.ws1])).headers.get('location')!,
    ).searchParams.get('code')!;
    const t = await tokenRequest(origin, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirect,
      client_id: reg.client_id,
      code_verifier: verifier,
      resource: resource.resource,
    });
    expect(t.status).toBe(200);
    // The token is for /mcp only …
    expect(
      (await fetch(`${server.url}/me`, { headers: { authorization: `Bearer ${t.json.access_token}` } })).status,
    ).toBe(401);
    // … where the granted abilities decide the tools.
    const c = await http(t.json.access_token);
    const tools = await names(c);
    expect(tools).toContain('listThreads');
    expect(tools).not.toContain('createListing');
    const r = await c.callTool({ name: 'listThreads', arguments: { limit: 1 } });
    expect((r.structuredContent as Structured).data).toHaveLength(1);
  });
});

it('an outside client: @modelcontextprotocol/inspector 1.0.3 --cli, on Node 22, lists and calls the tools of wcm mcp', async () => {
  const [node, dir] = await Promise.all([node22(), installInspector()]);
  const cli = path.join(dir, INSPECTOR_CLI);
  // The Inspector's cli.js spawns `node` from PATH for its own parts: that is Node 22 too. wcm is
  // given as `process.execPath BIN`, so `wcm mcp` runs on the project's Node.
  const env = {
    PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}`,
    WCM_CONFIG_DIR: cfg.dir,
    WCM_BASE_URL: server.url,
    WCM_TOKEN: demo.owner,
    WCM_WORKSPACE: demo.ws1,
  };
  const inspect = (args: string[]) =>
    execa(node, [cli, '--cli', process.execPath, BIN, 'mcp', ...args], { reject: false, env, timeout: 60_000 });
  const list = await inspect(['--method', 'tools/list']);
  expect(list.exitCode, list.stderr).toBe(0);
  const tools = JSON.parse(list.stdout.slice(list.stdout.indexOf('{'))).tools.map((t: { name: string }) => t.name);
  expect(tools).toContain('listThreads');
  const call = await inspect([
    '--method',
    'tools/call',
    '--tool-name',
    'getThread',
    '--tool-arg',
    `thread=${demo.newestThread}`,
  ]);
  expect(call.exitCode, call.stderr).toBe(0);
  const result = JSON.parse(call.stdout.slice(call.stdout.indexOf('{')));
  expect(result.structuredContent.data.subject).toBe('Large order for Friday');
}, 300_000);
