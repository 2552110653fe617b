import { randomUUID } from 'node:crypto';
import type { AnyOperation } from '../contract/operations.js';
import { resourceWords } from '../contract/route.js';
import { normalizeUuids } from '../contract/uuid.js';
import type { Dispatch, ToolDef, ToolRequest } from './tools.js';

/**
 * One tool call (no SDK import): its arguments checked and turned into the `/v1` request, the
 * answer shaped as MCP wants it, and failures worded as tool errors.
 */

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

/** A tool call that cannot become a request: a tool error naming the argument (422 unless `problem` says otherwise). */
export class ToolArgumentError extends Error {
  constructor(
    message: string,
    readonly problem?: Record<string, unknown>,
  ) {
    super(message);
  }
}

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
    operationId: op.operationId,
    params,
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
 * clients validate it against the tool's outputSchema, which describes success only (docs/mcp.md).
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
