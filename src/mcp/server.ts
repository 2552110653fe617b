import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  LoggingLevelSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  type LoggingLevel,
} from '@modelcontextprotocol/sdk/types.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { packageVersion } from '../version.js';
import { completeArgument, RESOURCES } from './completion.js';
import { callTool, errorResult } from './tool-call.js';
import { buildTools, listedTool, type Dispatch, type ToolDef, type ToolFilter } from './tools.js';

// The /mcp mount loads this one module lazily; the fast path travels with it.
export { fastToolCall, parsedDispatch, type CachedPage, type RawAnswer } from './fast-call.js';

/**
 * The MCP server of wcm (this module is what loads the SDK; nothing else imports it statically):
 * tools from the operations table, and threads and pages as resources. `dispatch` sends a
 * request where the transport's caller would: the API over HTTP (`wcm mcp`) or the in-process
 * dispatcher (`/mcp` on `wcm serve`).
 */
/**
 * One JSON Schema validator for every server: /mcp builds a server per request (stateless), and a
 * fresh Ajv per server was most of a small call's CPU.
 */
let validator: AjvJsonSchemaValidator | undefined;

export function createMcpServer(filter: ToolFilter, dispatch: Dispatch, tools: ToolDef[] = buildTools(filter)): Server {
  const byName = new Map(tools.map((t) => [t.name, t]));
  // Every tool there is, whatever the caller may use: a hidden tool called anyway gets the API's
  // answer (403 for a missing ability), not "unknown tool".
  const everyTool = new Map(
    buildTools({ abilities: null, defaultWorkspace: filter.defaultWorkspace }).map((t) => [t.name, t]),
  );
  const server = new Server(
    { name: 'wcm', version: packageVersion(), title: 'Workspace Contact Management (wcm)' },
    {
      capabilities: { tools: {}, resources: {}, logging: {}, completions: {} },
      jsonSchemaValidator: (validator ??= new AjvJsonSchemaValidator()),
      instructions: instructions(filter.defaultWorkspace),
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map(listedTool) as never,
  }));

  // Nothing is logged until the client asks for a level (stdio output stays the answers only).
  let logLevel: LoggingLevel | undefined;
  server.setRequestHandler(SetLevelRequestSchema, (req) => {
    logLevel = req.params.level;
    return {};
  });

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const tool = byName.get(req.params.name) ?? everyTool.get(req.params.name);
    if (!tool)
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `Unknown tool \`${req.params.name}\`: tools/list says which this token may use.`,
      );
    if (
      !byName.has(tool.name) &&
      (!tool.op.ability || !filter.abilities || filter.abilities.includes(tool.op.ability))
    ) {
      // Left out by --read-only, --tools or --toolsets rather than by the token: not served here.
      const problem = {
        title: 'Tool not enabled',
        status: 403,
        code: 'tool_not_enabled',
        detail: `\`${tool.name}\` is not enabled on this MCP server (see its --read-only, --tools and --toolsets).`,
      };
      return errorResult(problem) as unknown as Record<string, unknown>;
    }
    // The SDK has checked the params' shape (connectServer words what it refuses).
    const logged: Dispatch = async (r) => {
      const answer = await dispatch(r);
      if (logLevel && severity(logLevel) <= severity('info')) {
        const requestId =
          (answer.body as { request_id?: string; meta?: { request_id?: string } } | null)?.meta?.request_id ??
          (answer.body as { request_id?: string } | null)?.request_id;
        await extra.sendNotification({
          method: 'notifications/message',
          params: { level: 'info', logger: 'wcm', data: `${tool.name} ${answer.status} ${requestId ?? '-'}` },
        });
      }
      return answer;
    };
    return (await callTool(tool, req.params.arguments ?? {}, logged, filter.defaultWorkspace)) as unknown as Record<
      string,
      unknown
    >;
  });

  server.setRequestHandler(CompleteRequestSchema, async (req) => ({
    completion: await completeArgument(req.params, (name) => everyTool.get(name), dispatch, filter.defaultWorkspace),
  }));

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: Object.entries(RESOURCES)
      .filter(([, r]) => byName.has(r.operation))
      .map(([kind, r]) => ({
        uriTemplate: `wcm://workspaces/{workspace}/${kind}/{${r.param}}`,
        name: kind === 'threads' ? 'thread' : 'page',
        title: r.label,
        mimeType: 'application/json',
      })),
  }));
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const m = /^wcm:\/\/workspaces\/([^/]+)\/(threads|pages)\/([^/]+)$/.exec(req.params.uri);
    const r = m ? RESOURCES[m[2]] : undefined;
    const tool = r ? byName.get(r.operation) : undefined;
    if (!m || !r || !tool)
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `Unknown resource \`${req.params.uri}\`: use wcm://workspaces/{workspace}/threads/{thread} or …/pages/{page}.`,
      );
    const result = await callTool(
      tool,
      { workspace: decodeURIComponent(m[1]), [r.param]: decodeURIComponent(m[3]) },
      dispatch,
      undefined,
    );
    if (result.isError) throw new ProtocolError(ErrorCode.InvalidParams, result.content[0].text);
    return {
      contents: [
        { uri: req.params.uri, mimeType: 'application/json', text: JSON.stringify(result.structuredContent?.data) },
      ],
    };
  });
  return server;
}

/**
 * A JSON-RPC error the server makes: the SDK sends `code` and `message` as they are. (The SDK's
 * McpError puts "MCP error -32602: " into the message, and clients add that again when they show it.)
 */
class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const severity = (level: LoggingLevel): number => LoggingLevelSchema.options.indexOf(level);

/** What the model reads once: how tools are named, paged and fail, and the default workspace if any. */
function instructions(defaultWorkspace: string | undefined): string {
  const workspace = defaultWorkspace
    ? `Workspace operations take \`workspace\`; when it is left out they use ${defaultWorkspace}.`
    : 'Workspace operations take `workspace` (getMe lists yours).';
  return `Tools are the operations of the Workspace Contact Management API v1, named by operationId. ${workspace} Lists return \`next_cursor\`: pass it back as \`cursor\`. Errors are tool results with isError and the problem details.`;
}

/**
 * Connects a server to its transport (stdio or one `/mcp` request). A `tools/call` whose params are
 * malformed (no tool name, arguments that are not an object) is answered here with JSON-RPC -32602
 * naming the member: the SDK's own check would answer -32603, an internal error, with its schema
 * dump as the message.
 */
export async function connectServer(server: Server, transport: Transport): Promise<void> {
  await server.connect(transport);
  // The SDK's own errors (an unknown method, params it refuses) carry McpError's prefix: sent without it.
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(withoutPrefix(message), options);
  const receive = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const problem = malformedCall(message);
    if (problem === null) return receive?.(message, extra);
    const id = (message as { id: string | number }).id;
    transport
      .send(
        { jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidParams, message: problem } },
        { relatedRequestId: id },
      )
      .catch((err: unknown) => transport.onerror?.(err as Error));
  };
}

function withoutPrefix(message: JSONRPCMessage): JSONRPCMessage {
  const error = (message as { error?: { code: number; message: string } }).error;
  if (!error || !error.message.startsWith('MCP error ')) return message;
  return {
    ...message,
    error: { ...error, message: error.message.replace(/^MCP error -?\d+: /, '') },
  } as JSONRPCMessage;
}

/** What is wrong with a `tools/call` request's params, in words; null when nothing is (or it is not one). */
function malformedCall(message: JSONRPCMessage | Record<string, unknown>): string | null {
  const m = message as { method?: unknown; id?: unknown; params?: unknown };
  if (m.method !== 'tools/call' || m.id === undefined) return null;
  const params = m.params as { name?: unknown; arguments?: unknown } | undefined;
  if (!params || typeof params !== 'object' || Array.isArray(params))
    return 'tools/call: `params` must be an object, {"name": TOOL, "arguments": {…}}.';
  if (typeof params.name !== 'string' || params.name === '')
    return 'tools/call: `params.name` must be the name of a tool (a string); tools/list says which there are.';
  const args = params.arguments;
  if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
    return `tools/call: \`params.arguments\` must be an object of the tool's named arguments (or left out), not ${args === null ? 'null' : Array.isArray(args) ? 'an array' : `a ${typeof args}`}.`;
  }
  return null;
}
