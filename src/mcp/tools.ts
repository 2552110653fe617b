import type { z } from 'zod';
import type { Ability } from '../contract/enums.js';
import { operationList, type AnyOperation } from '../contract/operations.js';
import { jsonSchema } from './schemas.js';

/**
 * MCP tools generated from the operations table (docs/mcp.md): one tool per operation, named by its
 * operationId, with JSON schemas from the same zod schemas the server validates with. A new
 * operation in the table becomes a tool with no code here. No SDK import: the SDK loads only in
 * the server module that serves these.
 */

export interface ToolFilter {
  /** The caller's abilities: tools needing another are left out. Null: unknown, list all. */
  abilities: readonly Ability[] | null;
  readOnly?: boolean;
  /** Only these tools (operationIds). */
  tools?: readonly string[];
  /** Only these toolsets (operation tags, case-insensitive). */
  toolsets?: readonly string[];
  /** A workspace to use when a call names none: `workspace` becomes optional. */
  defaultWorkspace?: string;
}

export interface ToolDef {
  name: string;
  /** The operation's summary and the ability it needs: the tool's one title (a separate `title` would repeat it). */
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint: boolean; openWorldHint: boolean };
  op: AnyOperation;
}

/** Everything a tool call becomes: one request, as `/v1` would receive it. */
export interface ToolRequest {
  operationId: string;
  /** The path parameters, checked and lower-cased (ids). */
  params: Record<string, string>;
  method: string;
  /** Relative to the base (`/workspaces/…`), parameters filled and encoded. */
  path: string;
  query: Record<string, string>;
  body: unknown;
  idempotencyKey?: string;
  anonymous: boolean;
}

/** What a request answered: the status and the parsed JSON body (envelope or problem). */
export interface ToolAnswer {
  status: number;
  body: unknown;
}

export type Dispatch = (req: ToolRequest) => Promise<ToolAnswer>;

/**
 * Operations that are tools: not the webhook, which only the payment processor calls (signed), not
 * a compatibility alias, which would list the same tool twice, and not the management of OAuth
 * grants and applications, which is for personal tokens only (docs/security.md#oauth).
 */
export const toolOperations = (): AnyOperation[] =>
  operationList.filter((o) => o.access !== 'signature' && !o.aliasOf && !o.personal);

function inputSchema(op: AnyOperation, defaultWorkspace: string | undefined): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [k, s] of Object.entries(op.params.shape)) {
    // An id's name says what it is; the default workspace is said once, in the instructions.
    properties[k] = jsonSchema(s as z.ZodType, 'input');
    if (!(k === 'workspace' && defaultWorkspace)) required.push(k);
  }
  const query = jsonSchema(op.query, 'input') as { properties?: Record<string, unknown>; required?: string[] };
  for (const [k, s] of Object.entries(query.properties ?? {})) properties[k] = s;
  required.push(...(query.required ?? []));
  if (op.body) {
    properties.body = jsonSchema(op.body, 'input');
    const optional = op.body.safeParse({}).success;
    if (!optional) required.push('body');
  }
  if (op.access === 'public' && op.idempotent) {
    properties.idempotency_key = {
      type: 'string',
      minLength: 8,
      maxLength: 120,
      description: 'Generated (and returned) when absent; reuse it to retry safely.',
    };
  }
  // No `additionalProperties: false`: 29 bytes a tool, and an unknown argument is refused anyway
  // with a sentence naming the arguments there are (toRequest).
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

function outputSchema(op: AnyOperation): Record<string, unknown> {
  const data = jsonSchema(op.response, 'output');
  const properties: Record<string, unknown> = op.list
    ? { data: { type: 'array', items: data }, next_cursor: NULLABLE_STRING }
    : { data };
  if (op.access === 'public' && op.idempotent) properties.idempotency_key = { type: 'string' };
  // Success only: a failed call is an isError result without structuredContent (docs/mcp.md).
  return { type: 'object', properties };
}

const NULLABLE_STRING = { type: ['string', 'null'] };

function annotations(op: AnyOperation): ToolDef['annotations'] {
  const read = op.method === 'GET';
  const openWorldHint = op.operationId === 'createPaymentIntent';
  // destructiveHint means something only beside readOnlyHint: false (MCP: tool annotations).
  if (read) return { readOnlyHint: true, idempotentHint: true, openWorldHint };
  return {
    readOnlyHint: false,
    destructiveHint: op.method === 'DELETE',
    idempotentHint:
      op.method === 'PATCH' ||
      op.method === 'PUT' ||
      op.method === 'DELETE' ||
      (op.access === 'public' && !!op.idempotent),
    openWorldHint,
  };
}

/**
 * Built tool lists by filter: the schemas are a pure function of it, and converting them is most of
 * a small call's CPU. Keyed first by the abilities array itself (a token record is replaced whole,
 * never changed, so `/mcp` passes the same array on every call of a token): no key is serialized
 * per call, and lists go with the arrays they were built for.
 */
const builtTools = new WeakMap<object, Map<string, ToolDef[]>>();
const EVERY_ABILITY = {};

/** The tools a caller may use: those the token's abilities allow, and no OAuth management. */
export function buildTools(filter: ToolFilter): ToolDef[] {
  const abilities = filter.abilities ?? EVERY_ABILITY;
  let byRest = builtTools.get(abilities);
  if (!byRest) builtTools.set(abilities, (byRest = new Map()));
  const key = `${filter.readOnly ? 'ro' : 'rw'}|${filter.tools ? `=${filter.tools.join(',')}` : '*'}|${filter.toolsets ? `=${filter.toolsets.join(',')}` : '*'}|${filter.defaultWorkspace ?? ''}`;
  let tools = byRest.get(key);
  if (!tools) byRest.set(key, (tools = computeTools(filter)));
  return tools;
}

function computeTools(filter: ToolFilter): ToolDef[] {
  const wanted = filter.tools ? new Set(filter.tools) : null;
  const sets = filter.toolsets ? new Set(filter.toolsets.map((t) => t.toLowerCase())) : null;
  return toolOperations()
    .filter((op) => !filter.readOnly || op.method === 'GET')
    .filter((op) => !wanted || wanted.has(op.operationId))
    .filter((op) => !sets || sets.has(op.tag.toLowerCase()))
    .filter((op) => !op.ability || !filter.abilities || filter.abilities.includes(op.ability))
    .map((op) => ({
      name: op.operationId,
      description: `${op.summary}.${op.ability ? ` Needs ${op.ability}.` : ''}${op.access === 'public' ? ' Public: sent without the token.' : ''}`,
      inputSchema: inputSchema(op, filter.defaultWorkspace),
      outputSchema: outputSchema(op),
      annotations: annotations(op),
      op,
    }));
}

/** A tool as `tools/list` shows it. */
export function listedTool(t: ToolDef): Record<string, unknown> {
  return {
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema,
    outputSchema: t.outputSchema,
    annotations: t.annotations,
  };
}

/** Every toolset name (the operation tags), for help and error messages. */
export const toolsetNames = (): string[] => [...new Set(toolOperations().map((o) => o.tag))];
