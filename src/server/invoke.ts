/**
 * The one way in to a `/v1` operation: `invoke(core, op, input, principal, via)` checks who calls,
 * validates the input with the operation's schemas, runs its handler and returns what it answered,
 * as data. HTTP (operation.ts), `/mcp` and the dashboard are adapters: each turns its own request
 * into an input and a principal, and renders the result its own way.
 */
import type { Ability } from '../contract/enums.js';
import { fieldErrors } from '../contract/issues.js';
import type { AnyOperation } from '../contract/operations.js';
import { normalizeUuids } from '../contract/uuid.js';
import type { UserRecord } from '../store/records.js';
import type { StoreEngine } from '../store/engine/interface.js';
import { requireAbility, requireMembership, type AuthContext } from './auth.js';
import type { Call } from './chain.js';
import { Reply, type Clock, type Handler, type HandlerContext, type RequestInfo, type Services } from './context.js';
import { notFound, ProblemError, validationFailed } from './problems.js';
import { parseQuery, readJsonBody } from './request.js';

/** What invoking an operation needs of the App. */
export interface InvokeCore {
  readonly db: StoreEngine;
  readonly clock: Clock;
  readonly services: Services;
  readonly handlers: Record<string, Handler>;
}

/**
 * A dashboard session: its user, and what the personal token it signed in with reaches (every
 * ability and workspace on loopback). Handlers see no token (`ctx.auth` is null).
 */
export interface SessionPrincipal {
  readonly session: {
    readonly user: UserRecord;
    readonly abilities: readonly Ability[];
    readonly workspaceIds: readonly string[] | null;
  };
}

/**
 * Who calls, as the adapter found out: a checked bearer token's holder (HTTP, `/mcp`), a dashboard
 * session, or nobody (public and signature operations).
 */
export type Principal = AuthContext | SessionPrincipal | null;

/** An operation's input as a caller gives it, before validation. */
export interface OperationInput {
  /** Path parameters by name, as matched or given. */
  params: Record<string, string>;
  /** The query as sent (`?a=1`, or empty), or its parameters by name. */
  query?: string | Record<string, string>;
  /** The JSON body's bytes and their content type, as sent. */
  body?: { bytes: Buffer; contentType: string | undefined };
}

/** What an operation answered: its status (204 has no data), data or a list page, and extra headers. */
export interface OperationResult {
  status: number;
  /** The resource (or undefined for 204); absent for a list. */
  data?: unknown;
  /** A list operation's page: the items (JsonItems where the handler cached them) and the cursor. */
  page?: { items: unknown[]; next_cursor: string | null };
  headers: Record<string, string>;
}

/** What an adapter passes along besides input and principal: the request (ids, origin, headers) and idempotency. */
export interface Via {
  request: RequestInfo;
  idempotency?: Call['idempotency'];
}

const isSession = (p: Principal): p is SessionPrincipal => !!p && 'session' in p;

/**
 * Runs `op`: the principal's ability, path parameters (a malformed id is that resource's 404;
 * workspace membership), query and body by the operation's schemas, then its handler. Throws a
 * ProblemError for any refusal; an operation without a handler is `not_implemented`.
 */
export async function invoke(
  core: InvokeCore,
  op: AnyOperation,
  input: OperationInput,
  principal: Principal,
  via: Via,
): Promise<OperationResult> {
  const auth = isSession(principal) ? null : principal;
  if (auth) requireAbility(auth, op);
  else if (isSession(principal) && op.ability && !principal.session.abilities.includes(op.ability))
    throw new ProblemError('insufficient_ability', {
      detail: `\`${op.operationId}\` needs the \`${op.ability}\` ability, which this session was not signed in with.`,
    });
  const params = await pathParams(core, op, input.params, principal);
  const query = queryOf(op, input.query);
  const body = bodyOf(op, input.body);
  const handler = core.handlers[op.operationId];
  if (!handler) {
    throw new ProblemError('not_implemented', {
      detail: `\`${op.operationId}\` is in the contract but this server does not implement it yet.`,
    });
  }
  const ctx: HandlerContext = {
    params,
    query,
    body,
    auth,
    db: core.db,
    clock: core.clock,
    request: via.request,
    services: core.services,
    idempotency: via.idempotency,
  };
  const result = await handler(ctx as never);
  if (result instanceof Reply) {
    const status = result.status ?? op.status;
    return { status, data: status === 204 ? undefined : result.data, headers: result.headers };
  }
  if (op.list) return { status: op.status, page: result as OperationResult['page'], headers: {} };
  return { status: op.status, data: result, headers: {} };
}

/**
 * U+0000 (NUL) in any text an operation is given: PostgreSQL's text cannot hold it (its query fails),
 * so it is refused with 400 before validation, on both stores alike (docs/security.md). The field is
 * named as validation names it (`items.0.title`; a key holding NUL is named by its parent).
 */
const nulRefused = (field: string) =>
  new ProblemError('bad_request', {
    detail: `\`${field || '(body)'}\` contains the character U+0000 (NUL), which no text value may hold.`,
    errors: { [field || '(body)']: ['Must not contain U+0000 (NUL).'] },
  });

function refuseNulIn(values: Record<string, unknown>): void {
  for (const k in values) {
    const v = values[k];
    if (k.includes('\0') || (typeof v === 'string' && v.includes('\0'))) throw nulRefused(k);
  }
}

/** The path of the first string or key in a parsed JSON body that holds NUL, or null (no recursion). */
function nulInBody(body: unknown): string | null {
  const stack: Array<[unknown, string]> = [[body, '']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\0')) return path;
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k.includes('\0')) return path;
        stack.push([x, path ? `${path}.${k}` : k]);
      }
    }
  }
  return null;
}
/** A NUL in a JSON body is always written `\u0000`: a body without those six bytes needs no walk. */
const NUL_ESCAPE = Buffer.from('\\u0000');

/** Path parameters: a malformed id names nothing, so it is that resource's 404; then workspace membership. */
async function pathParams(
  core: InvokeCore,
  op: AnyOperation,
  given: Record<string, string>,
  principal: Principal,
): Promise<unknown> {
  refuseNulIn(given);
  // Ids in any case name the same record (RFC 4122): lower case before any lookup.
  const raw = normalizeUuids(op.params, given) as Record<string, string>;
  const result = op.params.safeParse(raw);
  const bad = result.success ? null : String(result.error.issues[0]?.path[0] ?? '');
  if (principal && 'workspace' in raw) {
    if (bad === 'workspace') throw notFound('workspace_not_found', raw.workspace);
    if (isSession(principal)) await requireSessionMembership(core.db, principal, raw.workspace);
    else await requireMembership(core.db, principal, raw.workspace);
  }
  if (bad !== null) throw notFound((op.notFound?.[bad] ?? 'not_found') as `${string}_not_found`, raw[bad] ?? '');
  return result.data;
}

/** A session reaches a workspace its user belongs to, among those its sign-in token names. */
async function requireSessionMembership(db: StoreEngine, p: SessionPrincipal, workspaceId: string): Promise<void> {
  const { user, workspaceIds } = p.session;
  const w = await db.read((tx) => tx.get('workspaces', workspaceId));
  if (!w?.members.some((m) => m.user_id === user.id) || (workspaceIds && !workspaceIds.includes(workspaceId)))
    throw new ProblemError('not_a_member', {
      detail: `This session's user is not a member of workspace \`${workspaceId}\`.`,
    });
}

/** The query: every parameter once, known names only. */
function queryOf(op: AnyOperation, given: OperationInput['query']): unknown {
  const { query: rawQuery, repeated } =
    typeof given === 'object' ? { query: given, repeated: null } : parseQuery(given ?? '');
  refuseNulIn(rawQuery);
  const q = op.query.safeParse(rawQuery);
  if (!q.success || repeated) {
    throw validationFailed(
      { ...repeated, ...(q.success ? {} : fieldErrors(q.error.issues)) },
      'Invalid query parameters.',
    );
  }
  return q.data;
}

/** The body, by the operation's schema (an operation without one ignores any body sent). */
function bodyOf(op: AnyOperation, given: OperationInput['body']): unknown {
  if (!op.body) return undefined;
  const bytes = given?.bytes ?? Buffer.alloc(0);
  const raw = readJsonBody(bytes, given?.contentType, op.bodyOptional);
  const nul = bytes.includes(NUL_ESCAPE) ? nulInBody(raw) : null;
  if (nul !== null) throw nulRefused(nul);
  const b = op.body.safeParse(raw);
  if (!b.success) throw validationFailed(fieldErrors(b.error.issues));
  return normalizeUuids(op.body, b.data);
}
