/**
 * A `/v1` operation after routing: its chain (the core's answering, the areas' middleware, auth)
 * and its last step, which validates path, query and body with the operation's schemas, calls the
 * handler and wraps what it returns in the envelope.
 */
import { fieldErrors } from '../contract/issues.js';
import type { AnyOperation } from '../contract/operations.js';
import { normalizeUuids } from '../contract/uuid.js';
import type { Store } from '../store/store.js';
import { authenticate, requireAbility, requireMembership } from './auth.js';
import { compose, type Exchange, type Middleware, type Next } from './chain.js';
import { Reply, type Clock, type Handler, type HandlerContext, type RequestInfo, type Services } from './context.js';
import { JsonItem } from './paging.js';
import { notFound, ProblemError, validationFailed } from './problems.js';
import { header, parseQuery, readJsonBody } from './request.js';
import { jsonResponse, splicedPage, type AppResponse } from './response.js';

/** What an operation's chain needs of the App. */
export interface OperationCore {
  readonly store: Store;
  readonly clock: Clock;
  readonly services: Services;
  readonly handlers: Record<string, Handler>;
  fail(err: unknown, info: RequestInfo): AppResponse;
}

/**
 * A 401 names where a client finds the resource's metadata (RFC 9728 §5.1), so an OAuth client can
 * discover the authorization server by itself.
 */
export function withResourceMetadata(err: unknown, metadataUrl: string, scope?: string): unknown {
  if (err instanceof ProblemError && err.status === 401) {
    err.headers['WWW-Authenticate'] =
      `Bearer resource_metadata="${metadataUrl}"${scope ? `, scope="${scope}"` : ''}${err.code === 'invalid_token' ? ', error="invalid_token"' : ''}`;
  }
  return err;
}

/** Every operation's chain: answering (outermost), the areas' `use`, auth (innermost), then the handler. */
export function operationChain(core: OperationCore, use: readonly Middleware[]): Next {
  return compose([answering(core), ...use, authenticated(core)], (x) => runOperation(core, x));
}

/** The outermost step: any error becomes problem+json, and every answer gets the chain's headers. */
const answering =
  (core: OperationCore): Middleware =>
  async (x, next) => {
    let res: AppResponse;
    try {
      res = await next(x);
    } catch (err) {
      res = core.fail(err, x.info);
    }
    Object.assign(res.headers, x.headers);
    if (x.op.access === 'bearer' || x.op.access === 'token') res.headers['Cache-Control'] = 'no-store';
    return res;
  };

/** The innermost step: who is calling, for bearer and token operations, and may they. */
const authenticated =
  (core: OperationCore): Middleware =>
  async (x, next) => {
    const { op, info } = x;
    if (op.access !== 'bearer' && op.access !== 'token') return next(x);
    try {
      x.auth = authenticate(core.store, header(info.headers, 'authorization'), core.clock.now(), info.audience);
    } catch (err) {
      // Each base path is its own resource to strict RFC 9728 clients: /api/v1 has its own document.
      const resource = info.path.startsWith('/api/v1') ? '/api/v1' : '';
      throw withResourceMetadata(err, `${info.origin}/.well-known/oauth-protected-resource${resource}`);
    }
    requireAbility(x.auth, op);
    return next(x);
  };

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
function pathParams(core: OperationCore, x: Exchange): unknown {
  const { op, auth } = x;
  refuseNulIn(x.pathParams);
  // Ids in any case name the same record (RFC 4122): lower case before any lookup.
  const raw = normalizeUuids(op.params, x.pathParams) as Record<string, string>;
  const result = op.params.safeParse(raw);
  const bad = result.success ? null : String(result.error.issues[0]?.path[0] ?? '');
  if (auth && 'workspace' in raw) {
    if (bad === 'workspace') throw notFound('workspace_not_found', raw.workspace);
    requireMembership(core.store, auth, raw.workspace);
  }
  if (bad !== null) throw notFound((op.notFound?.[bad] ?? 'not_found') as `${string}_not_found`, raw[bad] ?? '');
  return result.data;
}

/** Query (every parameter once, known names only) and body, by the operation's schemas. */
function queryAndBody(op: AnyOperation, x: Exchange): { query: unknown; body: unknown } {
  const { query: rawQuery, repeated } = parseQuery(x.search);
  refuseNulIn(rawQuery);
  const q = op.query.safeParse(rawQuery);
  if (!q.success || repeated) {
    throw validationFailed(
      { ...repeated, ...(q.success ? {} : fieldErrors(q.error.issues)) },
      'Invalid query parameters.',
    );
  }
  let body: unknown = undefined;
  if (op.body) {
    const { info } = x;
    const raw = readJsonBody(info.rawBody, header(info.headers, 'content-type'), op.bodyOptional);
    const nul = info.rawBody.includes(NUL_ESCAPE) ? nulInBody(raw) : null;
    if (nul !== null) throw nulRefused(nul);
    const b = op.body.safeParse(raw);
    if (!b.success) throw validationFailed(fieldErrors(b.error.issues));
    body = normalizeUuids(op.body, b.data);
  }
  return { query: q.data, body };
}

async function runOperation(core: OperationCore, x: Exchange): Promise<AppResponse> {
  const { op, info } = x;
  const params = pathParams(core, x);
  const { query, body } = queryAndBody(op, x);
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
    auth: x.auth,
    store: core.store,
    clock: core.clock,
    request: info,
    services: core.services,
    idempotency: x.idempotency,
  };
  const result = await handler(ctx as never);
  if (result instanceof Reply) {
    return jsonResponse(
      result.status ?? op.status,
      { data: result.data, meta: { request_id: info.id } },
      info.id,
      result.headers,
    );
  }
  if (op.list) {
    const page = result as { items: unknown[]; next_cursor: string | null };
    const meta = { request_id: info.id, next_cursor: page.next_cursor };
    if (page.items.length && page.items.every((i) => i instanceof JsonItem))
      return splicedPage(op.status, info.id, page.items as JsonItem[], meta);
    return jsonResponse(op.status, { data: page.items, meta }, info.id, {});
  }
  return jsonResponse(op.status, { data: result, meta: { request_id: info.id } }, info.id, {});
}
