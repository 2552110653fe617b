import { StoreUnavailableError } from '../store/pg/errors.js';
import { fieldErrors } from '../contract/issues.js';
import { buildOpenApi } from '../contract/openapi.js';
import { operationList } from '../contract/operations.js';
import type { Store } from '../store/store.js';
import { authenticate, requireAbility, requireMembership } from './auth.js';
import { normalizeUuids } from '../contract/uuid.js';
import {
  systemClock,
  Reply,
  type Clock,
  type Handler,
  type HandlerContext,
  type RequestInfo,
  type Services,
  type ExtraServices,
} from './context.js';
import { handlers as defaultHandlers } from './handlers/index.js';
import { ProblemError, notFound, validationFailed } from './problems.js';
import { JsonItem } from './paging.js';
import { Router } from './router.js';
import { compose, type Exchange, type Middleware, type Next } from './chain.js';
import { requestIdFor } from './ids.js';
import { basePathOf, header, parseQuery, plainTarget, readJsonBody, type AppRequest } from './request.js';
import { jsonResponse, problemResponse, splicedPage, baseHeaders, type AppResponse } from './response.js';
import { DEFAULT_TRUST, type Trust } from './trust/config.js';
import { addCors, checkEdge } from './trust/edge.js';

export type { AppRequest, AppResponse };

/**
 * A part of the server outside the v1 API (OAuth endpoints, MCP, the control plane, the
 * dashboard) that answers every path under its prefix (`/oauth` answers `/oauth` and `/oauth/…`).
 * It gets the request as read, the request's id and origin, and the App: to dispatch a v1 request
 * in-process (`app.handle`) or turn a thrown ProblemError into problem+json (`app.fail`).
 */
export interface Mount {
  prefix: string;
  handle(req: AppRequest, info: RequestInfo, app: App): Promise<AppResponse> | AppResponse;
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

export type { Exchange, Middleware };

export interface AppOptions {
  store: Store;
  /** The server's origin and trusted hosts and origins (TRUST.md §1); `wcm serve` sets it once listening. */
  trust?: Trust;
  clock?: Clock;
  handlers?: Record<string, Handler>;
  services?: ExtraServices;
  /**
   * Middleware around every operation, outermost first, between the core's answering (errors to
   * problem+json, added headers) and its auth (chain.ts): the emulator's faults, rate limits, idempotency.
   */
  use?: Middleware[];
  /** Parts of the server outside `/v1` and `/api/v1`, by path prefix. */
  mounts?: Mount[];
  /** Called with unexpected errors (logged by `wcm serve`; never sent to the client). */
  onError?(err: unknown, req: RequestInfo): void;
  /** Told of every answered request (the emulator's request log); `operationId` when a route matched. */
  observe?(info: RequestInfo, res: AppResponse, operationId: string | null, startedAt: number): void;
}

/** The whole API as a function of a request: no port needed (tests call it in-process). */
export class App {
  readonly router = new Router(operationList);
  readonly store: Store;
  readonly clock: Clock;
  readonly services: Services;
  private readonly handlers: Record<string, Handler>;
  private readonly chain: Next;
  private readonly mounts: Mount[];
  private openapiText: string | null = null;
  /**
   * Set once, when the server knows its port (serve.ts), before the first request is read. Every
   * URL the server builds takes its origin from here, never from the Host header.
   */
  trust: Trust;

  constructor(private readonly options: AppOptions) {
    this.store = options.store;
    this.clock = options.clock ?? systemClock;
    this.handlers = options.handlers ?? defaultHandlers;
    this.chain = compose([this.respond, ...(options.use ?? []), this.authenticate], (x) => this.run(x));
    this.mounts = options.mounts ?? [];
    this.trust = options.trust ?? DEFAULT_TRUST;
    this.services = { ...(options.services ?? {}), store: this.store, clock: this.clock };
  }

  /** Answers one request. Never throws. */
  async handle(req: AppRequest): Promise<AppResponse> {
    if (!this.options.observe) return this.answer(req, null);
    const startedAt = performance.now();
    const seen: { info?: RequestInfo; operationId?: string } = {};
    const res = await this.answer(req, seen);
    if (seen.info) this.options.observe(seen.info, res, seen.operationId ?? null, startedAt);
    return res;
  }

  private async answer(
    req: AppRequest,
    seen: { info?: RequestInfo; operationId?: string } | null,
  ): Promise<AppResponse> {
    const requestId = requestIdFor(req.headers['x-request-id']);
    // Only the path and query of the request target count; a target URL cannot parse (an
    // absolute-form target with a bad port, say) names no route.
    let url: { pathname: string; search: string } | null = plainTarget(req.url);
    let badTarget = false;
    if (!url) {
      try {
        url = new URL(
          req.url.startsWith('/') ? `http://localhost${req.url.replace(/^\/+/, '/')}` : req.url,
          'http://localhost',
        );
      } catch {
        url = new URL('http://localhost/');
        badTarget = true;
      }
    }
    const origin = this.trust.origin;
    const base = badTarget ? undefined : basePathOf(url.pathname);
    const info: RequestInfo = {
      id: requestId,
      method: req.method.toUpperCase(),
      path: url.pathname,
      origin,
      baseUrl: `${origin}${base ?? '/v1'}`,
      headers: req.headers,
      remoteAddress: req.remoteAddress ?? '127.0.0.1',
      rawBody: typeof req.body === 'string' ? Buffer.from(req.body) : (req.body ?? Buffer.alloc(0)),
    };
    if (req.audience) info.audience = req.audience;
    if (seen) seen.info = info;
    const edge = checkEdge(this.trust, info);
    if (edge) return edge instanceof ProblemError ? this.fail(edge, info) : edge;
    const res = await this.route(req, info, url, base, badTarget, seen);
    if (info.headers.origin !== undefined) addCors(this.trust, info, res);
    return res;
  }

  private async route(
    req: AppRequest,
    info: RequestInfo,
    url: { pathname: string; search: string },
    base: string | undefined,
    badTarget: boolean,
    seen: { info?: RequestInfo; operationId?: string } | null,
  ): Promise<AppResponse> {
    try {
      if (badTarget) throw new ProblemError('route_not_found', { detail: 'The request target is not a valid path.' });
      if (url.pathname === '/healthz') {
        if (info.method !== 'GET' && info.method !== 'HEAD') throw methodNotAllowed(['GET']);
        return this.json(200, { status: 'ok' }, info, {});
      }
      // On PostgreSQL: what other processes committed is applied before anything is read.
      await this.store.sync();
      if (!base) {
        const mount = this.mountFor(url.pathname);
        if (mount) return await mount.handle(req, info, this);
      }
      if (!base)
        throw new ProblemError('route_not_found', {
          detail: `No route for \`${info.method} ${url.pathname}\`: API paths start with /v1 or /api/v1.`,
        });
      const rel = url.pathname.slice(base.length) || '/';
      if (rel === '/openapi.json') {
        if (info.method !== 'GET') throw methodNotAllowed(['GET']);
        this.openapiText ??= JSON.stringify(buildOpenApi('/v1'));
        return {
          status: 200,
          headers: baseHeaders(info.id, 'application/json; charset=utf-8'),
          body: this.openapiText,
        };
      }
      const match = this.router.match(info.method, rel);
      if (match.kind === 'none')
        throw new ProblemError('route_not_found', { detail: `No route for \`${info.method} ${url.pathname}\`.` });
      if (match.kind === 'method') throw methodNotAllowed(match.allow);
      const op = match.op;
      if (seen) seen.operationId = op.operationId;
      return await this.chain({ op, info, pathParams: match.params, search: url.search, auth: null, headers: {} });
    } catch (err) {
      return this.fail(err, info);
    }
  }

  private mountFor(pathname: string): Mount | undefined {
    for (const m of this.mounts) if (pathname === m.prefix || pathname.startsWith(`${m.prefix}/`)) return m;
    return undefined;
  }

  /** The outermost step: any error becomes problem+json, and every answer gets the chain's headers. */
  private readonly respond: Middleware = async (x, next) => {
    let res: AppResponse;
    try {
      res = await next(x);
    } catch (err) {
      res = this.fail(err, x.info);
    }
    Object.assign(res.headers, x.headers);
    if (x.op.access === 'bearer' || x.op.access === 'token') res.headers['Cache-Control'] = 'no-store';
    return res;
  };

  /** The innermost step: who is calling, for bearer and token operations, and may they. */
  private readonly authenticate: Middleware = async (x, next) => {
    const { op, info } = x;
    if (op.access !== 'bearer' && op.access !== 'token') return next(x);
    try {
      x.auth = authenticate(this.store, header(info.headers, 'authorization'), this.clock.now(), info.audience);
    } catch (err) {
      // Each base path is its own resource to strict RFC 9728 clients: /api/v1 has its own document.
      const resource = info.path.startsWith('/api/v1') ? '/api/v1' : '';
      throw withResourceMetadata(err, `${info.origin}/.well-known/oauth-protected-resource${resource}`);
    }
    requireAbility(x.auth, op);
    return next(x);
  };

  private async run(x: Exchange): Promise<AppResponse> {
    const { op, info, auth, search } = x;
    // Ids in any case name the same record (RFC 4122): lower case before any lookup.
    const rawParams = normalizeUuids(op.params, x.pathParams) as Record<string, string>;
    // Path parameters: a malformed id names nothing, so it is that resource's 404.
    const paramsResult = op.params.safeParse(rawParams);
    const bad = paramsResult.success ? null : String(paramsResult.error.issues[0]?.path[0] ?? '');
    if (auth && 'workspace' in rawParams) {
      if (bad === 'workspace') throw notFound('workspace_not_found', rawParams.workspace);
      requireMembership(this.store, auth, rawParams.workspace);
    }
    if (bad !== null)
      throw notFound((op.notFound?.[bad] ?? 'not_found') as `${string}_not_found`, rawParams[bad] ?? '');
    const params = paramsResult.data;

    // Query: every parameter once, known names only.
    const { query: rawQuery, repeated } = parseQuery(search);
    const q = op.query.safeParse(rawQuery);
    if (!q.success || repeated) {
      throw validationFailed(
        { ...repeated, ...(q.success ? {} : fieldErrors(q.error.issues)) },
        'Invalid query parameters.',
      );
    }

    let body: unknown = undefined;
    if (op.body) {
      const b = op.body.safeParse(readJsonBody(info.rawBody, header(info.headers, 'content-type'), op.bodyOptional));
      if (!b.success) throw validationFailed(fieldErrors(b.error.issues));
      body = normalizeUuids(op.body, b.data);
    }

    const handler = this.handlers[op.operationId];
    if (!handler) {
      throw new ProblemError('not_implemented', {
        detail: `\`${op.operationId}\` is in the contract but this server does not implement it yet.`,
      });
    }
    const ctx: HandlerContext = {
      params,
      query: q.data,
      body,
      auth,
      store: this.store,
      clock: this.clock,
      request: info,
      services: this.services,
      idempotency: x.idempotency,
    };
    const result = await handler(ctx as never);
    if (result instanceof Reply) {
      return this.json(
        result.status ?? op.status,
        { data: result.data, meta: { request_id: info.id } },
        info,
        result.headers,
      );
    }
    if (op.list) {
      const page = result as { items: unknown[]; next_cursor: string | null };
      const meta = { request_id: info.id, next_cursor: page.next_cursor };
      if (page.items.length && page.items.every((i) => i instanceof JsonItem))
        return splicedPage(op.status, info.id, page.items as JsonItem[], meta);
      return this.json(op.status, { data: page.items, meta }, info, {});
    }
    return this.json(op.status, { data: result, meta: { request_id: info.id } }, info, {});
  }

  json(status: number, body: unknown, info: RequestInfo, headers: Record<string, string>): AppResponse {
    return jsonResponse(status, body, info.id, headers);
  }

  /** The one place an error becomes a response: typed problems as they are, anything else a 500. */
  fail(err: unknown, info: RequestInfo): AppResponse {
    let p: ProblemError;
    if (err instanceof ProblemError) p = err;
    else if (err instanceof StoreUnavailableError)
      p = new ProblemError('store_unavailable', {
        detail: err.message,
        headers: { 'Retry-After': '1' },
      });
    else {
      this.options.onError?.(err, info);
      p = new ProblemError('internal_error', {
        detail: 'The server failed to handle this request. Nothing was changed.',
      });
    }
    return problemResponse(p, info.path, info.id);
  }
}

function methodNotAllowed(allow: string[]): ProblemError {
  return new ProblemError('method_not_allowed', {
    detail: `Allowed methods: ${allow.join(', ')}.`,
    headers: { Allow: allow.join(', ') },
  });
}
