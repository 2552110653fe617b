import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Ability } from '../contract/enums.js';
import { operationList, type AnyOperation } from '../contract/operations.js';
import { normalizeUuids } from '../contract/uuid.js';
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
 * grants and applications, which is for personal tokens only (TRUST.md §3).
 */
export const toolOperations = (): AnyOperation[] =>
  operationList.filter((o) => o.access !== 'signature' && !o.aliasOf && !o.personal);

/**
 * An operation's argument names by kind, and its path split around its parameters (`/a/{x}/b` →
 * `['/a/', 'x', '/b']`: literal text at even indexes, names at odd ones), worked out once per
 * operation (toRequest runs per call).
 */
interface ArgNames {
  path: ReadonlySet<string>;
  query: ReadonlySet<string>;
  pathParts: readonly string[];
}
const argNamesCache = new WeakMap<AnyOperation, ArgNames>();
function argNames(op: AnyOperation): ArgNames {
  let n = argNamesCache.get(op);
  if (!n) {
    const pathParts = op.path.split(/\{(\w+)\}/);
    argNamesCache.set(
      op,
      (n = {
        path: new Set(pathParts.filter((_, i) => i % 2 === 1)),
        query: new Set(Object.keys(op.query.shape)),
        pathParts,
      }),
    );
  }
  return n;
}

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
  // Success only: a failed call is an isError result without structuredContent (MCP.md).
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

/** A tool call that cannot become a request: a tool error naming the argument (422 unless `problem` says otherwise). */
export class ToolArgumentError extends Error {
  constructor(
    message: string,
    readonly problem?: Record<string, unknown>,
  ) {
    super(message);
  }
}

const resourceWords = (s: string): string =>
  s
    .replace(/_/g, ' ')
    .replace(/\boauth\b/g, 'OAuth')
    .replace(/\bapp\b/g, 'application');

/**
 * Ids are checked by their schema before any path is built, so `"."`, `".."` or `"a/b"` can never
 * make the path name another operation's route. A malformed id is the API's own answer: the
 * resource's 404, quoting the id.
 */
function checkIds(op: AnyOperation, params: Record<string, string>): void {
  const normalized = normalizeUuids(op.params, params) as Record<string, string>;
  const parsed = op.params.safeParse(normalized);
  if (parsed.success) {
    Object.assign(params, normalized);
    return;
  }
  const bad = String(parsed.error.issues[0]?.path[0] ?? '');
  const code = bad === 'workspace' ? 'workspace_not_found' : (op.notFound?.[bad] ?? 'not_found');
  const what = code === 'not_found' ? 'record' : resourceWords(code.replace(/_not_found$/, ''));
  const detail = `No ${what} with id \`${params[bad]}\`.`;
  throw new ToolArgumentError(detail, {
    title: `${what.charAt(0).toUpperCase()}${what.slice(1)} not found`,
    status: 404,
    code,
    detail,
  });
}

/** Turns a tool's arguments into the request `/v1` would receive. */
export function toRequest(
  op: AnyOperation,
  args: Record<string, unknown>,
  defaultWorkspace: string | undefined,
): ToolRequest {
  const { path: names, query: queryNames, pathParts } = argNames(op);
  const params: Record<string, string> = {};
  const query: Record<string, string> = {};
  let idempotencyKey: string | undefined;
  for (const k in args) {
    if (!Object.hasOwn(args, k)) continue;
    const v = args[k];
    if (names.has(k)) {
      if (typeof v !== 'string' || v === '')
        throw new ToolArgumentError(`\`${k}\` must be a non-empty string (an id).`);
      params[k] = v;
    } else if (queryNames.has(k)) {
      if (v === undefined || v === null) continue;
      if (typeof v === 'object') throw new ToolArgumentError(`\`${k}\` must be a string, number or boolean.`);
      query[k] = String(v);
    } else if (k === 'body' && op.body) {
      continue;
    } else if (k === 'idempotency_key' && op.access === 'public' && op.idempotent) {
      if (typeof v !== 'string') throw new ToolArgumentError('`idempotency_key` must be a string.');
      idempotencyKey = v;
    } else {
      throw new ToolArgumentError(
        `\`${k}\` is not an argument of \`${op.operationId}\`; it takes ${[...names, ...queryNames, ...(op.body ? ['body'] : [])].map((n) => `\`${n}\``).join(', ') || 'no arguments'}.`,
      );
    }
  }
  if (names.has('workspace') && params.workspace === undefined && defaultWorkspace) params.workspace = defaultWorkspace;
  for (const n of names)
    if (params[n] === undefined)
      throw new ToolArgumentError(
        `\`${n}\` is required${n === 'workspace' ? ' (no default workspace is known)' : ''}.`,
      );
  if (names.size) checkIds(op, params);
  if (op.access === 'public' && op.idempotent && !idempotencyKey) idempotencyKey = randomUUID();
  let path = pathParts[0];
  for (let i = 1; i < pathParts.length; i += 2) path += encodeURIComponent(params[pathParts[i]]) + pathParts[i + 1];
  return {
    method: op.method,
    path,
    query,
    body: op.body ? (args.body ?? {}) : undefined,
    idempotencyKey,
    anonymous: op.access === 'public',
  };
}

/** A problem+json in words: title, detail, each field error and the resolution. */
export function problemText(p: Record<string, unknown>): string {
  const lines = [`${String(p.title ?? 'Error')} (${String(p.status ?? '')} ${String(p.code ?? '')})`.trim()];
  if (p.detail) lines.push(String(p.detail));
  const errors = p.errors && typeof p.errors === 'object' ? (p.errors as Record<string, string[]>) : {};
  for (const [field, messages] of Object.entries(errors))
    for (const m of [messages].flat()) lines.push(`- ${field}: ${m}`);
  if (p.resolution) lines.push(`Resolution: ${String(p.resolution)}`);
  return lines.join('\n');
}

export interface ToolResult {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * A failed call: the problem in words, then the problem+json itself. No structuredContent: SDK
 * clients validate it against the tool's outputSchema, which describes success only (MCP.md).
 */
export function errorResult(problem: Record<string, unknown>): ToolResult {
  return {
    content: [
      { type: 'text', text: problemText(problem) },
      { type: 'text', text: JSON.stringify(problem) },
    ],
    isError: true,
  };
}

/** Runs one tool: the request through `dispatch`, the answer as MCP shapes it (structuredContent, isError). */
export async function callTool(
  tool: ToolDef,
  args: Record<string, unknown>,
  dispatch: Dispatch,
  defaultWorkspace: string | undefined,
): Promise<ToolResult> {
  let req: ToolRequest;
  try {
    req = toRequest(tool.op, args, defaultWorkspace);
  } catch (err) {
    if (!(err instanceof ToolArgumentError)) throw err;
    return errorResult(
      err.problem ?? { title: 'Invalid arguments', status: 422, code: 'validation_failed', detail: err.message },
    );
  }
  const answer = await dispatch(req);
  const body = (answer.body && typeof answer.body === 'object' ? answer.body : {}) as Record<string, unknown>;
  if (answer.status < 200 || answer.status >= 300) return errorResult(body);
  const meta = (body.meta ?? {}) as { next_cursor?: string | null };
  const out: Record<string, unknown> = { data: body.data ?? null, next_cursor: meta.next_cursor ?? null };
  if (req.idempotencyKey && tool.op.access === 'public') out.idempotency_key = req.idempotencyKey;
  return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
}
