import { defineCommand } from '../src/cli/command.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { UsageError, apiErrorOf } from '../src/cli/errors.js';

interface McpOptions {
  readOnly?: boolean;
  tools?: string;
  toolsets?: string;
}

const list = (raw: string | undefined) =>
  raw === undefined
    ? undefined
    : raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);

export default defineCommand<McpOptions>({
  path: ['mcp'],
  summary: 'Serve the API to an AI agent over MCP (stdio): one tool per operation',
  description:
    'A Model Context Protocol server on stdin/stdout for desktop and editor agents. It calls the target\n' +
    'every other command resolves (--base-url, --profile, WCM_* variables), with that token; tools the\n' +
    'token lacks the ability for are left out. Only protocol messages go to stdout.\n' +
    'Agent config: {"command": "wcm", "args": ["mcp"]}',
  options: [
    { flags: '--read-only', description: 'list only the read (GET) tools' },
    { flags: '--tools <names>', description: 'only these tools (operationIds, comma-separated)' },
    {
      flags: '--toolsets <tags>',
      description: 'only these toolsets (operation tags, comma-separated, e.g. Conversations,Knowledge)',
    },
  ],
  examples: [
    'wcm mcp',
    'wcm mcp --read-only --toolsets Conversations',
    'wcm mcp --profile prod --tools listThreads,getThread',
  ],
  async run(opts, f) {
    const { buildTools, toolOperations, toolsetNames } = await import('../src/mcp/tools.js');
    const tools = list(opts.tools);
    const toolsets = list(opts.toolsets);
    const known = new Set(toolOperations().map((o) => o.operationId));
    const unknownTool = tools?.find((t) => !known.has(t));
    if (unknownTool)
      throw new UsageError(
        `\`--tools\`: there is no tool \`${unknownTool}\`.`,
        `Tools are operationIds: ${[...known].join(', ')}.`,
      );
    const sets = toolsetNames();
    const unknownSet = toolsets?.find((t) => !sets.some((s) => s.toLowerCase() === t.toLowerCase()));
    if (unknownSet)
      throw new UsageError(
        `\`--toolsets\`: there is no toolset \`${unknownSet}\`.`,
        `Toolsets are the operation tags: ${sets.join(', ')}.`,
      );

    const target = await f.target();
    const client = await f.client();
    // The token's abilities decide which tools are listed; an instance without GET /v1/me lists all.
    let abilities: string[] | null = null;
    let only: string | undefined;
    let unreachable: Error | undefined;
    try {
      const me = (await client.call('getMe')).body.data;
      abilities = me.token.abilities;
      // No workspace from a flag, the environment or a profile of this origin: the token's only one.
      if (me.workspaces.length === 1) only = me.workspaces[0].id;
    } catch (err) {
      if (apiErrorOf(err) && [401, 403].includes(apiErrorOf(err)!.status)) throw err;
      // A server that is down is not fatal (the agent may start before it), but it is said.
      if ((err as { kind?: string }).kind === 'unreachable') unreachable = err as Error;
    }
    const filter = {
      abilities: abilities as never,
      readOnly: opts.readOnly,
      tools,
      toolsets,
      defaultWorkspace: target.workspace ?? only,
    };
    if (!buildTools(filter).length)
      throw new UsageError(
        "No tool is left after the filters and the token's abilities.",
        'Loosen --tools / --toolsets / --read-only, or use a token with more abilities.',
      );

    const [{ createMcpServer, connectServer }, { StdioServerTransport }] = await Promise.all([
      import('../src/mcp/server.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
    ]);
    const server = createMcpServer(filter, async (req) => {
      try {
        const res = await client.request({
          method: req.method,
          path: req.path,
          query: req.query,
          body: req.body,
          idempotencyKey: req.idempotencyKey,
          anonymous: req.anonymous,
        });
        return { status: res.status, body: res.body };
      } catch (err) {
        const api = apiErrorOf(err);
        if (api) return { status: api.status, body: api.problem };
        return {
          status: 502,
          body: { title: 'Cannot reach the API', status: 502, code: 'unreachable', detail: (err as Error).message },
        };
      }
    });
    const transport = new StdioServerTransport();
    const ended = new Promise<'closed' | 'end'>((resolve) => {
      transport.onclose = () => resolve('closed');
      f.io.stdin?.on?.('end', () => resolve('end'));
    });
    await connectServer(server, transport);
    const inFlight = countRequests(transport);
    f.io.stderr.write(`wcm mcp: serving ${buildTools(filter).length} tools for ${target.baseUrl} on stdio\n`);
    if (unreachable)
      f.io.stderr.write(
        `wcm mcp: warning: ${target.baseUrl} is unreachable: ${unreachable.message}\n` +
          `wcm mcp: tool calls will fail until it answers, and every tool is listed (the token's abilities could not be read). ${(unreachable as { hint?: string }).hint ?? ''}`.trimEnd() +
          '\n',
      );
    // A client that sends its requests and closes stdin (a script piping into `wcm mcp`) still gets
    // every answer: the requests in flight are answered before the server closes.
    if ((await ended) === 'end') await inFlight.settled();
    await server.close();
    return 0;
  },
});

/**
 * Counts the requests a transport received that it has not answered yet (a message with an id and a
 * method is a request; one with an id and no method, an answer), and says when none is left.
 */
function countRequests(transport: Transport): { settled(): Promise<void> } {
  let open = 0;
  let idle: (() => void) | null = null;
  const receive = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ('method' in message && 'id' in message) open++;
    receive?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    try {
      await send(message, options);
    } finally {
      if (!('method' in message) && 'id' in message && --open <= 0) idle?.();
    }
  };
  return { settled: () => (open <= 0 ? Promise.resolve() : new Promise<void>((resolve) => (idle = resolve))) };
}
