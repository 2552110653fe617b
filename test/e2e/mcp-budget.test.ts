// docs/mcp.md, context budget: what tools/list costs an agent on every turn, measured on the real
// server's /mcp for an all-abilities token; every tool schema compiles in Ajv strict mode (draft
// 2020-12); and the SDK's own Client, which validates structuredContent against each tool's
// outputSchema, gets valid results from every list and get tool.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demo, onPort } from '../support/server.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** The budget (docs/mcp.md): bytes of the tools/list answer, and of what a model reads of it. */
const TOTAL_BUDGET = 24_000;
const MODEL_BUDGET = 12_000;

let server: Awaited<ReturnType<typeof onPort>>;
let origin: string;
let body: string;
let tools: Array<Record<string, unknown> & { name: string; inputSchema: object; outputSchema?: object }>;
beforeAll(async () => {
  server = await onPort();
  origin = new URL(server.url).origin;
  const res = await fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${demo.owner}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(res.status).toBe(200);
  body = await res.text();
  tools = JSON.parse(body).result.tools;
});
afterAll(() => server.close());

/** Every schema node under a schema, the schema included. */
function* nodes(v: unknown): Generator<Record<string, unknown>> {
  if (!v || typeof v !== 'object') return;
  if (!Array.isArray(v)) yield v as Record<string, unknown>;
  for (const c of Object.values(v)) yield* nodes(c);
}

describe('tools/list for an all-abilities token', () => {
  it(`is at most ${TOTAL_BUDGET} bytes in all and ${MODEL_BUDGET} bytes model-facing (name, title, description, inputSchema)`, () => {
    const total = Buffer.byteLength(body);
    const model = Buffer.byteLength(
      JSON.stringify(
        tools.map(({ name, title, description, inputSchema }) => ({ name, title, description, inputSchema })),
      ),
    );
    expect(tools.length).toBeGreaterThan(20);
    expect(total).toBeLessThanOrEqual(TOTAL_BUDGET);
    expect(model).toBeLessThanOrEqual(MODEL_BUDGET);
  });

  it('carries no regex beside a format, no problem shape in output schemas, and says each tool in at most two sentences', () => {
    for (const t of tools) {
      for (const n of [...nodes(t.inputSchema), ...nodes(t.outputSchema)])
        expect(n.format !== undefined && n.pattern !== undefined, `${t.name}: ${JSON.stringify(n)}`).toBe(false);
      const out = t.outputSchema as { properties: Record<string, unknown>; anyOf?: unknown };
      expect(Object.keys(out.properties), t.name).toContain('data');
      expect(Object.keys(out.properties), t.name).not.toContain('code');
      expect(out.anyOf, t.name).toBeUndefined();
      expect((t.description as string).split(/\.(?:\s|$)/).filter(Boolean).length, t.name).toBeLessThanOrEqual(3);
    }
    // The ability a tool needs is in its description.
    expect(tools.find((t) => t.name === 'listThreads')!.description).toContain('engagements:read');
  });

  it('every input and output schema compiles in Ajv strict mode (draft 2020-12)', () => {
    const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));
    const failures: string[] = [];
    for (const t of tools) {
      for (const [kind, schema] of [
        ['input', t.inputSchema],
        ['output', t.outputSchema],
      ] as const) {
        try {
          ajv.compile(schema!);
        } catch (err) {
          failures.push(`${t.name} ${kind}: ${(err as Error).message}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('the SDK Client validates every list and get result against its outputSchema', () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'wcm-budget-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${demo.owner}` } },
      }),
    );
    // The client validates a tool's results with the outputSchema it got from tools/list.
    await client.listTools();
  });
  afterAll(() => client.close());

  /** Arguments for the get tools; the list tools take the workspace (when they have one). */
  const args = async (name: string): Promise<Record<string, unknown>> => {
    const ws = { workspace: demo.ws1 };
    switch (name) {
      case 'getForm':
        return { ...ws, form: demo.formCatering };
      case 'getPage':
        return { ...ws, page: demo.pageAcme };
      case 'getThread':
        return { ...ws, thread: demo.newestThread };
      case 'getArticle':
        return { ...ws, list: demo.knowledgeList, article: demo.article4Versions };
      case 'listArticles':
        return { ...ws, list: demo.knowledgeList };
      case 'getListing': {
        const first = await client.callTool({ name: 'listListings', arguments: { ...ws, limit: 1 } });
        return { ...ws, list: (first.structuredContent as { data: Array<{ id: string }> }).data[0].id };
      }
      default:
        return name.startsWith('list') && name !== 'listListingTemplates' && name !== 'listOAuthGrants' ? ws : {};
    }
  };

  it('calls of every list and get tool succeed and validate', async () => {
    const reads = tools.filter((t) => (t.annotations as { readOnlyHint: boolean }).readOnlyHint).map((t) => t.name);
    expect(reads.length).toBeGreaterThan(15);
    for (const name of reads) {
      const r = await client
        .callTool({ name, arguments: await args(name) })
        .catch((err: Error) => ({ isError: true, content: [{ text: err.message }] }));
      expect(r.isError, `${name}: ${JSON.stringify(r.content)}`).toBeFalsy();
      const structured = 'structuredContent' in r ? (r.structuredContent as { data?: unknown } | undefined) : undefined;
      expect(structured?.data, name).toBeTruthy();
    }
  }, 60_000);
});
