import { StoreUnavailableError } from '../store/engine/interface.js';
import { buildOpenApi } from '../contract/openapi.js';
import { operationList, type AnyOperation } from '../contract/operations.js';
import type { StoreEngine } from '../store/engine/interface.js';
import {
  systemClock,
  type Clock,
  type Handler,
  type RequestInfo,
  type Services,
  type ExtraServices,
} from './context.js';
import { handlers as defaultHandlers } from '../api/handlers.js';
import { ProblemError } from './problems.js';
import { ANY, Router } from './router.js';
import { compose, type Call, type Middleware, type OperationCall, type RouteHandler } from './chain.js';
import { operationChain } from './operation.js';
import { requestIdFor } from './ids.js';
import { BASE_PATHS, basePathOf, plainTarget, type AppRequest } from './request.js';
import { clientAddress } from './client-address.js';
import { jsonResponse, problemResponse, baseHeaders, type AppResponse } from './response.js';
import { DEFAULT_TRUST, type Trust } from './trust/config.js';
import { hostCheck, originRule } from './trust/edge.js';

export type { AppRequest, AppResponse, Call, Middleware, OperationCall, RouteHandler };
export { withResourceMetadata } from './operation.js';

declare module './chain.js' {
  interface Call {
    /** The App answering: to dispatch a v1 request in-process (`app.handle`), or `app.fail`. */
    readonly app: App;
  }
}

/** The one router: `/v1` and `/api/v1` (the operations), `/healthz`, and every area's routes and mounts. */
export type AppRouter = Router<RouteHandler>;

/** An area's part of the server outside `/v1`: it adds its routes (and mounts) to the App's router. */
export type Routes = (router: AppRouter) => void;

export interface AppOptions {
  /** The store, behind its interface (either engine). */
  db: StoreEngine;
  /** The server's origin and trusted hosts and origins (docs/security.md#host-origin-and-cors); `wcm serve` sets it once listening. */
  trust?: Trust;
  clock?: Clock;
  handlers?: Record<string, Handler>;
  services?: ExtraServices;
  /**
   * Middleware around every operation, outermost first, between the core's answering (errors to
   * problem+json, added headers) and its auth (operation.ts): the emulator's faults, rate limits, idempotency.
   */
  use?: Middleware[];
  /**
   * Middleware around every request, outermost, so it sees every answer, the Host and Origin
   * refusals included: the error log, the request log (chain.ts).
   */
  around?: Middleware<Call>[];
  /** The areas' routes outside `/v1` and `/api/v1`. */
  routes?: Routes[];
}

/** The whole API as a function of a request: no port needed (tests call it in-process). */
export class App {
  readonly router: AppRouter = new Router();
  readonly db: StoreEngine;
  readonly clock: Clock;
  readonly services: Services;
  readonly handlers: Record<string, Handler>;
  private readonly chain: (x: Call) => Promise<AppResponse>;
  /** Every operation's chain: the areas' middleware, auth, then `invoke` (operation.ts). */
  private readonly run: (x: OperationCall) => Promise<AppResponse>;
  /** The same chain ending in a 404: a target that is no path still meets the Host and Origin checks. */
  private readonly badTarget: (x: Call) => Promise<AppResponse>;
  private openapiText: string | null = null;
  /**
   * Set once, when the server knows its port (serve.ts), before the first request is read. Every
   * URL the server builds takes its origin from here, never from the Host header.
   */
  trust: Trust;

  constructor(options: AppOptions) {
    this.clock = options.clock ?? systemClock;
    this.db = options.db;
    this.handlers = options.handlers ?? defaultHandlers;
    this.trust = options.trust ?? DEFAULT_TRUST;
    this.services = { ...(options.services ?? {}), db: this.db, clock: this.clock };
    this.router
      .on(['GET', 'HEAD'], '/healthz', (x) => jsonResponse(200, { status: 'ok' }, x.info.id))
      .on(ANY, '/healthz', notAllowed(['GET']));
    this.run = operationChain(this, options.use ?? []);
    const v1 = this.operations();
    for (const base of BASE_PATHS) this.router.route(base, v1);
    for (const add of options.routes ?? []) add(this.router);
    // The observers first, so they see refusals too (answered, never thrown); then the Host check,
    // the first step that may answer.
    const fail = (err: unknown, info: RequestInfo) => this.fail(err, info);
    const edge = [...(options.around ?? []), hostCheck(() => this.trust, fail), originRule(() => this.trust, fail)];
    this.chain = compose(edge, (x) => this.dispatch(x));
    this.badTarget = compose(edge, async () => {
      throw new ProblemError('route_not_found', { detail: 'The request target is not a valid path.' });
    });
  }

  /** Answers one request. Never throws. */
  async handle(req: AppRequest): Promise<AppResponse> {
    // Only the path and query of the request target count; a target URL cannot parse (an
    // absolute-form target with a bad port, say) names no route.
    let url: { pathname: string; search: string } | null = plainTarget(req.url);
    let bad = false;
    if (!url) {
      try {
        url = new URL(
          req.url.startsWith('/') ? `http://localhost${req.url.replace(/^\/+/, '/')}` : req.url,
          'http://localhost',
        );
      } catch {
        url = new URL('http://localhost/');
        bad = true;
      }
    }
    const origin = this.trust.origin;
    const base = bad ? undefined : basePathOf(url.pathname);
    const info: RequestInfo = {
      id: requestIdFor(req.headers['x-request-id']),
      method: req.method.toUpperCase(),
      path: url.pathname,
      origin,
      baseUrl: `${origin}${base ?? '/v1'}`,
      headers: req.headers,
      // The peer, or behind a `--trust-proxy` proxy the client it names (src/server/client-address.ts).
      remoteAddress: clientAddress(
        this.trust.proxies,
        req.remoteAddress ?? '127.0.0.1',
        req.headers['x-forwarded-for'],
      ),
      rawBody: typeof req.body === 'string' ? Buffer.from(req.body) : (req.body ?? Buffer.alloc(0)),
    };
    const x: Call = { req, info, app: this, search: url.search, params: {}, op: null, auth: null, headers: {} };
    try {
      return await (bad ? this.badTarget(x) : this.chain(x));
    } catch (err) {
      return this.fail(err, info);
    }
  }

  /** The last step of the request chain: the router's route, or its 404 / 405. */
  private async dispatch(x: Call): Promise<AppResponse> {
    const { info } = x;
    try {
      const m = this.router.match(info.method, info.path);
      if (m.kind === 'none') {
        const hint = basePathOf(info.path) ? '' : ': API paths start with /v1 or /api/v1';
        throw new ProblemError('route_not_found', { detail: `No route for \`${info.method} ${info.path}\`${hint}.` });
      }
      if (m.kind === 'method') throw methodNotAllowed(m.allow);
      x.params = m.params;
      return await m.target(x);
    } catch (err) {
      return this.fail(err, info);
    }
  }

  /**
   * One operation through its chain (the areas' middleware, auth, `invoke`), with no request chain
   * or router: for a caller already inside a request, `/mcp`'s tool calls. Never throws.
   */
  operate(op: AnyOperation, info: RequestInfo, params: Record<string, string>, search: string): Promise<AppResponse> {
    const req = { method: info.method, url: `${info.path}${search}`, headers: info.headers, body: info.rawBody };
    return this.run({ req, info, app: this, search, params, op, auth: null, headers: {} });
  }

  /** The operations of the contract table, one route each, and the OpenAPI document: under each base path. */
  private operations(): AppRouter {
    const r: AppRouter = new Router({ headAsGet: true, trailingSlash: true });
    for (const op of operationList) {
      r.on(op.method, op.path, (x) => {
        x.op = op;
        return this.run(x as OperationCall);
      });
    }
    return r
      .on('GET', '/openapi.json', (x) => this.openapi(x.info))
      .on(['HEAD', ANY], '/openapi.json', notAllowed(['GET']));
  }

  private openapi(info: RequestInfo): AppResponse {
    this.openapiText ??= JSON.stringify(buildOpenApi('/v1'));
    return { status: 200, headers: baseHeaders(info.id, 'application/json; charset=utf-8'), body: this.openapiText };
  }

  json(status: number, body: unknown, info: RequestInfo, headers: Record<string, string>): AppResponse {
    return jsonResponse(status, body, info.id, headers);
  }

  /**
   * The one place an error becomes a response: typed problems as they are, anything else a 500
   * that carries the error out (`error`) for the error log, never to the client.
   */
  fail(err: unknown, info: RequestInfo): AppResponse {
    if (err instanceof ProblemError) return problemResponse(err, info.path, info.id);
    if (err instanceof StoreUnavailableError) {
      const unavailable = new ProblemError('store_unavailable', {
        detail: err.message,
        headers: err.retryAfter ? { 'Retry-After': err.retryAfter } : {},
      });
      return problemResponse(unavailable, info.path, info.id);
    }
    const res = problemResponse(
      new ProblemError('internal_error', { detail: 'The server failed to handle this request. Nothing was changed.' }),
      info.path,
      info.id,
    );
    res.error = err;
    return res;
  }
}

function methodNotAllowed(allow: string[]): ProblemError {
  return new ProblemError('method_not_allowed', {
    detail: `Allowed methods: ${allow.join(', ')}.`,
    headers: { Allow: allow.join(', ') },
  });
}

/** A route's answer to the methods it does not take, where the router's default 405 would list others. */
function notAllowed(allow: string[]): RouteHandler {
  return () => {
    throw methodNotAllowed(allow);
  };
}
