/**
 * A `/v1` operation after routing, the HTTP adapter of `invoke` (invoke.ts): its chain (the core's
 * answering, the areas' middleware, auth) and its last step, which invokes the operation with the
 * request's parts and the token's holder, and renders the result as the envelope.
 */
import { UUID } from '../contract/uuid.js';
import { authenticate } from './auth.js';
import { compose, type Middleware, type OperationCall } from './chain.js';
import type { RequestInfo } from './context.js';
import { invoke, type InvokeCore, type OperationResult } from './invoke.js';
import { JsonItem } from './paging.js';
import { ProblemError } from './problems.js';
import { header } from './request.js';
import { jsonResponse, splicedPage, type AppResponse } from './response.js';

/** What an operation's chain needs of the App. */
export interface OperationCore extends InvokeCore {
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
export function operationChain(
  core: OperationCore,
  use: readonly Middleware[],
): (x: OperationCall) => Promise<AppResponse> {
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
      // The workspace the path names is read with the token, for the membership check (a malformed
      // id names none: validation answers it).
      const named = x.params.workspace;
      const workspace = named && UUID.test(named) ? named.toLowerCase() : undefined;
      x.auth = await authenticate(core.db, header(info.headers, 'authorization'), info.audience, workspace);
    } catch (err) {
      // Each base path is its own resource to strict RFC 9728 clients: /api/v1 has its own document.
      const resource = info.path.startsWith('/api/v1') ? '/api/v1' : '';
      throw withResourceMetadata(err, `${info.origin}/.well-known/oauth-protected-resource${resource}`);
    }
    return next(x);
  };

/** The HTTP adapter's last step: the request's parts as the operation's input, its result as the envelope. */
async function runOperation(core: OperationCore, x: OperationCall): Promise<AppResponse> {
  const { op, info } = x;
  const input = {
    params: x.params,
    query: x.search,
    body: op.body ? { bytes: info.rawBody, contentType: header(info.headers, 'content-type') } : undefined,
  };
  return envelope(await invoke(core, op, input, x.auth, { request: info, idempotency: x.idempotency }), info.id);
}

/** A result as HTTP answers it: `{data, meta}`, a list page spliced from cached items, or an empty 204. */
export function envelope(result: OperationResult, requestId: string): AppResponse {
  const { status, page, headers } = result;
  if (status === 204) return { status, headers: { ...emptyHeaders(requestId), ...headers }, body: '' };
  if (page) {
    const meta = { request_id: requestId, next_cursor: page.next_cursor };
    if (page.items.length && page.items.every((i) => i instanceof JsonItem))
      return splicedPage(status, requestId, page.items as JsonItem[], meta);
    return jsonResponse(status, { data: page.items, meta }, requestId, headers);
  }
  return jsonResponse(status, { data: result.data, meta: { request_id: requestId } }, requestId, headers);
}

const emptyHeaders = (requestId: string) => ({ 'X-Request-Id': requestId, 'X-Content-Type-Options': 'nosniff' });
