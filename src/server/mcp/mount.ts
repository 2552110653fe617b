import { ABILITIES, type Ability } from '../../contract/enums.js';
import { operations, type AnyOperation } from '../../contract/operations.js';
import { routes, type Route } from '../../contract/table.js';
import type { StoreEngine } from '../../store/engine/interface.js';
import type { RawAnswer } from '../../mcp/server.js';
import type { ToolRequest } from '../../mcp/tools.js';
import { withResourceMetadata, type App, type AppResponse, type Call, type Routes } from '../app.js';
import { ANY } from '../router.js';
import { header, nestedDeeperThan, type RequestInfo } from '../request.js';
import { partsResponse } from '../response.js';
import { authenticate, MCP_AUDIENCE, type AuthContext } from '../auth.js';
import { requestIdFor } from '../ids.js';
import { ProblemError } from '../problems.js';

export const MCP_PATH = '/mcp';
const byId = operations as unknown as Record<string, AnyOperation>;
/** Far beyond any tool's arguments (the JSON-RPC envelope adds 3 levels to a body's few). */
const MAX_JSON_DEPTH = 64;
/**
 * The abilities the tools need, for `scope="…"` on a 401 (MCP authorization, 2025-11-25): a client
 * asks for these rather than guessing. Grant management is no tool (docs/security.md#oauth), so it adds none.
 */
const MCP_SCOPE = ABILITIES.filter((a) =>
  Object.values(routes).some((r: Route) => r.ability === a && !r.personal && r.access !== 'signature'),
).join(' ');

/** The SDK and the tool table, loaded on the first /mcp request only (start-up stays as it was). */
interface McpModules {
  createMcpServer: typeof import('../../mcp/server.js').createMcpServer;
  connectServer: typeof import('../../mcp/server.js').connectServer;
  fastToolCall: typeof import('../../mcp/server.js').fastToolCall;
  parsedDispatch: typeof import('../../mcp/server.js').parsedDispatch;
  buildTools: typeof import('../../mcp/tools.js').buildTools;
  Transport: typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js').WebStandardStreamableHTTPServerTransport;
}
let sdk: Promise<McpModules> | null = null;
/** Once loaded, read without an await per request. */
let loaded: McpModules | null = null;
const loadSdk = () =>
  (sdk ??= Promise.all([
    import('../../mcp/server.js'),
    import('../../mcp/tools.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
  ]).then(
    ([server, tools, http]) =>
      (loaded = {
        createMcpServer: server.createMcpServer,
        connectServer: server.connectServer,
        fastToolCall: server.fastToolCall,
        parsedDispatch: server.parsedDispatch,
        buildTools: tools.buildTools,
        Transport: http.WebStandardStreamableHTTPServerTransport,
      }),
  ));

/**
 * `/mcp` (docs/mcp.md): Streamable HTTP, stateless (each POST is answered on its own, as JSON). An OAuth
 * resource: OAuth tokens of audience `wcm-mcp` and personal tokens are accepted; anything else is
 * 401 naming the resource metadata. Tool calls run in-process through each operation's chain
 * (`app.operate`) with the caller's token, so every check of the API applies.
 */
export function mcpRoutes(): Routes {
  return (r) =>
    r
      .on(ANY, MCP_PATH, (x) => answer(x))
      .mount(MCP_PATH, () => {
        throw new ProblemError('route_not_found', { detail: `The MCP endpoint is ${MCP_PATH}.` });
      });

  async function answer(x: Call): Promise<AppResponse> {
    const { info, app } = x;
    const metadata = `${info.origin}/.well-known/oauth-protected-resource/mcp`;
    let auth;
    try {
      auth = await authenticate(app.db, header(info.headers, 'authorization'), MCP_AUDIENCE);
    } catch (err) {
      return app.fail(withResourceMetadata(err, metadata, MCP_SCOPE), info);
    }
    if (info.method !== 'POST') {
      // Stateless: no server-initiated stream (GET) and no session to end (DELETE).
      return app.fail(
        new ProblemError('method_not_allowed', {
          detail: 'This MCP endpoint is stateless: send JSON-RPC with POST.',
          headers: { Allow: 'POST' },
        }),
        info,
      );
    }
    if (nestedDeeperThan(info.rawBody, MAX_JSON_DEPTH)) {
      const message = `Parse error: the message nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`;
      return {
        status: 400,
        headers: { 'Content-Type': 'application/json', 'X-Request-Id': info.id, 'Cache-Control': 'no-store' },
        body: JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message }, id: null }),
      };
    }
    return callTools(x, auth);
  }

  /** The caller's tools: a plain tool call on the fast path, anything else through the SDK. */
  async function callTools(x: Call, auth: AuthContext): Promise<AppResponse> {
    const { info, app } = x;
    const mcp = loaded ?? (await loadSdk());
    const defaultWorkspace = await onlyWorkspace(app.db, auth);
    const abilities = auth.token.abilities as Ability[];
    const filter = { abilities, defaultWorkspace };
    const tools = mcp.buildTools(filter);
    const operate = inProcessDispatch(app, info);
    // The request log names the operation a tool call ran (the last, for a batch).
    const dispatchRaw = (r: ToolRequest) => ((x.op = byId[r.operationId]), operate(r));
    const headers: Record<string, string> = {
      'X-Request-Id': info.id,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    };
    let parsed: unknown;
    try {
      parsed = JSON.parse(info.rawBody.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    const fast = await mcp.fastToolCall(
      {
        accept: header(info.headers, 'accept'),
        contentType: header(info.headers, 'content-type'),
        protocolVersion: header(info.headers, 'mcp-protocol-version'),
      },
      parsed,
      tools,
      filter,
      dispatchRaw,
    );
    if (fast !== null) headers['content-type'] = 'application/json';
    if (typeof fast === 'string') return { status: 200, headers, body: fast };
    if (fast) return partsResponse(200, headers, fast);
    // Everything else (initialize, tools/list, resources, batches, protocol errors): the SDK.
    return viaSdk(mcp, mcp.createMcpServer(filter, mcp.parsedDispatch(dispatchRaw), tools), info, headers);
  }
}

/**
 * The caller's workspace when it reaches exactly one (its user's memberships, narrowed by an OAuth
 * grant's workspaces): the tools' default. Reads at most two of the user's workspaces.
 */
async function onlyWorkspace(db: StoreEngine, auth: AuthContext): Promise<string | undefined> {
  const granted = auth.token.workspace_ids;
  const page = await db.read((tx) =>
    tx.page('workspaces', 'workspacesByMember', {
      partition: auth.user.id,
      limit: 1,
      filter: (w) => !granted || granted.includes(w.id),
    }),
  );
  return page.items.length === 1 && !page.more ? page.items[0].id : undefined;
}

/** One JSON-RPC message answered by the SDK's server over a stateless transport, closed after. */
async function viaSdk(
  mcp: McpModules,
  server: ReturnType<McpModules['createMcpServer']>,
  info: RequestInfo,
  headers: Record<string, string>,
): Promise<AppResponse> {
  const transport = new mcp.Transport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await mcp.connectServer(server, transport);
  try {
    const requestHeaders = new Headers();
    for (const [k, v] of Object.entries(info.headers)) if (typeof v === 'string') requestHeaders.set(k, v);
    const response = await transport.handleRequest(
      new Request(`${info.origin}${info.path}`, { method: 'POST', headers: requestHeaders, body: info.rawBody }),
    );
    const out: AppResponse = { status: response.status, headers, body: await response.text() };
    response.headers.forEach((v, k) => (out.headers[k] = v));
    return out;
  } finally {
    await server.close();
  }
}

/**
 * A tool's request run in-process through the operation's own chain (`app.operate`: faults, rate
 * limits, idempotency, auth, then `invoke`) with the `/mcp` caller's token (none for public
 * operations), address and the MCP audience: every check of the API applies as over HTTP.
 */
export function inProcessDispatch(
  app: App,
  info: Pick<RequestInfo, 'headers' | 'remoteAddress'>,
): (r: ToolRequest) => Promise<RawAnswer> {
  const authorization = header(info.headers, 'authorization');
  return async (r) => {
    let qs = '';
    for (const k in r.query) qs += `${qs ? '&' : ''}${encodeURIComponent(k)}=${encodeURIComponent(r.query[k])}`;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (!r.anonymous && authorization) headers.authorization = authorization;
    if (r.idempotencyKey) headers['idempotency-key'] = r.idempotencyKey;
    const { origin } = app.trust;
    const res = await app.operate(
      byId[r.operationId],
      {
        id: requestIdFor(undefined),
        method: r.method,
        path: `/v1${r.path}`,
        origin,
        baseUrl: `${origin}/v1`,
        headers,
        remoteAddress: info.remoteAddress,
        rawBody: r.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(r.body)),
        audience: MCP_AUDIENCE,
      },
      r.params,
      qs ? `?${qs}` : '',
    );
    // A plain function, not a getter: an object literal with an accessor gets a hidden class of its
    // own, which outlives the request and keeps the page it reaches alive past young collections.
    return { status: res.status, text: () => res.body, page: res.page };
  };
}
