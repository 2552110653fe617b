import { randomBytes } from 'node:crypto';
import { fieldErrors } from '../contract/issues.js';
import { buildOpenApi } from '../contract/openapi.js';
import { operationList, type AnyOperation } from '../contract/operations.js';
import type { Store } from '../store/store.js';
import { authenticate, requireAbility, requireMembership, type AuthContext } from './auth.js';
import { normalizeUuids } from '../contract/uuid.js';
import { systemClock, Reply, type Clock, type Handler, type HandlerContext, type RequestInfo, type Services } from './context.js';
import { handlers as defaultHandlers } from './handlers/index.js';
import { PROBLEM_KINDS, ProblemError, notFound, problemBody, validationFailed } from './problems.js';
import { JsonItem } from './paging.js';
import { Router } from './router.js';

export const MAX_BODY_BYTES = 1024 * 1024;
export const BASE_PATHS = ['/v1', '/api/v1'] as const;

/** A request as the dispatcher sees it: already read, with no socket attached. */
export interface AppRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body?: Buffer | string;
  remoteAddress?: string;
  /**
   * Set only by in-process callers, never from the wire: the audience an OAuth token must have
   * (the /mcp mount dispatches its tool calls here with `wcm-mcp`). Default: the API's.
   */
  audience?: string;
}

export interface AppResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /**
   * When set, `body` is exactly these buffers, concatenated, as UTF-8 (list pages are assembled
   * from cached bytes): the HTTP adapter sends them instead of encoding `body` again. Setting
   * `body` clears them.
   */
  parts?: readonly Buffer[];
  /**
   * When set, the HTTP adapter writes the status and headers and then hands the socket's response
   * to this function, which writes the body over time and ends it (Server-Sent Events). `body` is
   * then unused.
   */
  stream?(res: import('node:http').ServerResponse): void;
  /** Drop the connection instead of answering (an injected fault). */
  drop?: boolean;
}

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
export function withResourceMetadata(err: unknown, metadataUrl: string): unknown {
  if (err instanceof ProblemError && err.status === 401) {
    err.headers['WWW-Authenticate'] = `Bearer resource_metadata="${metadataUrl}"${err.code === 'invalid_token' ? ', error="invalid_token"' : ''}`;
  }
  return err;
}

/** A response whose body exists as byte parts; the string is built only if someone asks for it. */
function partsResponse(status: number, headers: Record<string, string>, parts: readonly Buffer[]): AppResponse {
  let text: string | undefined;
  let raw: readonly Buffer[] | undefined = parts;
  return {
    status,
    headers,
    get body() {
      return (text ??= Buffer.concat(raw ?? []).toString('utf8'));
    },
    set body(v: string) {
      text = v;
      raw = undefined;
    },
    get parts() {
      return raw;
    },
    set parts(v: readonly Buffer[] | undefined) {
      raw = v;
      text = undefined;
    },
  };
}

const COMMA = Buffer.from(',');
const PAGE_HEAD = Buffer.from('{"data":[');

/**
 * Hooks around public operations (rate limits, idempotency). `around` wraps the handler call;
 * `headers` adds headers to every response of the operation.
 */
export interface PublicGuard {
  before?(op: AnyOperation, req: RequestInfo): { headers?: Record<string, string> } | void;
  around?(op: AnyOperation, req: RequestInfo, run: () => Promise<AppResponse>): Promise<AppResponse>;
}

export interface AppOptions {
  store: Store;
  clock?: Clock;
  handlers?: Record<string, Handler>;
  services?: Record<string, unknown>;
  guards?: PublicGuard[];
  /** Parts of the server outside `/v1` and `/api/v1`, by path prefix. */
  mounts?: Mount[];
  /** Called with unexpected errors (logged by `wcm serve`; never sent to the client). */
  onError?(err: unknown, req: RequestInfo): void;
  /** Told of every answered request (the emulator's request log); `operationId` when a route matched. */
  observe?(info: RequestInfo, res: AppResponse, operationId: string | null, startedAt: number): void;
  /** Consulted before an operation runs (the emulator's injected faults); never for mounts. */
  fault?(operationId: string, info: RequestInfo): Promise<AppResponse | undefined> | undefined;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random bytes drawn in batches (one randomBytes call per 256 ids, not per request). */
const ID_BYTES = 20;
let idPool = Buffer.alloc(0);
let idAt = 0;
const BASE62_BYTES = Buffer.from(BASE62, 'latin1');
/** The id is spelled into these bytes and read out as one string (not 20 concatenations). */
const idSpelling = Buffer.from(`req_${'x'.repeat(ID_BYTES)}`, 'latin1');

export function newRequestId(): string {
  if (idAt + ID_BYTES > idPool.length) {
    idPool = randomBytes(ID_BYTES * 256);
    idAt = 0;
  }
  for (let i = 0; i < ID_BYTES; i++) idSpelling[4 + i] = BASE62_BYTES[idPool[idAt + i] % 62];
  idAt += ID_BYTES;
  return idSpelling.toString('latin1');
}

export const header = (h: AppRequest['headers'], name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * Path segments that need no normalizing (no dot segments, no percent-escapes, nothing URL would
 * encode), and a query of characters URL keeps as they are.
 */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_~-][A-Za-z0-9_~.-]*)*\/?$/;
const PLAIN_QUERY = /^[A-Za-z0-9_~.\-=&%+,:@/?!$*();]*$/;

/**
 * The pathname and search `new URL` would give for an origin-form target in the plain form most
 * clients send, without parsing a URL per request; null for anything else (the caller then uses URL).
 */
export function plainTarget(target: string): { pathname: string; search: string } | null {
  const q = target.indexOf('?');
  const pathname = q === -1 ? target : target.slice(0, q);
  if (!pathname.startsWith('/') || !PLAIN_PATH.test(pathname)) return null;
  if (q === -1) return { pathname, search: '' };
  const query = target.slice(q + 1);
  if (!PLAIN_QUERY.test(query)) return null;
  return { pathname, search: query ? `?${query}` : '' };
}

const BASE_PREFIXES = BASE_PATHS.map((b) => [b, `${b}/`] as const);
/** The API base path (`/v1`, `/api/v1`) a path is under, if any. */
function basePathOf(pathname: string): string | undefined {
  for (const [b, prefix] of BASE_PREFIXES) if (pathname === b || pathname.startsWith(prefix)) return b;
  return undefined;
}

const NO_QUERY: Record<string, string> = Object.freeze(Object.create(null));

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;.*)?$/i;

/** The whole API as a function of a request: no port needed (tests call it in-process). */
export class App {
  readonly router = new Router(operationList);
  readonly store: Store;
  readonly clock: Clock;
  readonly services: Services;
  private readonly handlers: Record<string, Handler>;
  private readonly guards: PublicGuard[];
  private readonly mounts: Mount[];
  private openapiText: string | null = null;

  constructor(private readonly options: AppOptions) {
    this.store = options.store;
    this.clock = options.clock ?? systemClock;
    this.handlers = options.handlers ?? defaultHandlers;
    this.guards = options.guards ?? [];
    this.mounts = options.mounts ?? [];
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

  private async answer(req: AppRequest, seen: { info?: RequestInfo; operationId?: string } | null): Promise<AppResponse> {
    const given = header(req.headers, 'x-request-id');
    const requestId = given && REQUEST_ID.test(given) ? given : newRequestId();
    // Only the path and query of the request target count; a target URL cannot parse (an
    // absolute-form target with a bad port, say) names no route.
    let url: { pathname: string; search: string } | null = plainTarget(req.url);
    let badTarget = false;
    if (!url) {
      try {
        url = new URL(req.url.startsWith('/') ? `http://localhost${req.url.replace(/^\/+/, '/')}` : req.url, 'http://localhost');
      } catch {
        url = new URL('http://localhost/');
        badTarget = true;
      }
    }
    const host = header(req.headers, 'host') ?? 'localhost';
    const base = badTarget ? undefined : basePathOf(url.pathname);
    const info: RequestInfo = {
      id: requestId,
      method: req.method.toUpperCase(),
      path: url.pathname,
      origin: `http://${host}`,
      baseUrl: `http://${host}${base ?? '/v1'}`,
      headers: req.headers,
      remoteAddress: req.remoteAddress ?? '127.0.0.1',
      rawBody: typeof req.body === 'string' ? Buffer.from(req.body) : (req.body ?? Buffer.alloc(0)),
    };
    if (req.audience) info.audience = req.audience;
    if (seen) seen.info = info;
    try {
      if (badTarget) throw new ProblemError('route_not_found', { detail: 'The request target is not a valid path.' });
      if (url.pathname === '/healthz') {
        if (info.method !== 'GET' && info.method !== 'HEAD') throw methodNotAllowed(['GET']);
        return this.json(200, { status: 'ok' }, info, {});
      }
      if (!base) {
        const mount = this.mountFor(url.pathname);
        if (mount) return await mount.handle(req, info, this);
      }
      if (!base) throw new ProblemError('route_not_found', { detail: `No route for \`${info.method} ${url.pathname}\`: API paths start with /v1 or /api/v1.` });
      const rel = url.pathname.slice(base.length) || '/';
      if (rel === '/openapi.json') {
        if (info.method !== 'GET') throw methodNotAllowed(['GET']);
        this.openapiText ??= JSON.stringify(buildOpenApi('/v1'));
        return { status: 200, headers: this.baseHeaders(info, 'application/json; charset=utf-8'), body: this.openapiText };
      }
      const match = this.router.match(info.method, rel);
      if (match.kind === 'none') throw new ProblemError('route_not_found', { detail: `No route for \`${info.method} ${url.pathname}\`.` });
      if (match.kind === 'method') throw methodNotAllowed(match.allow);
      const op = match.op;
      if (seen) seen.operationId = op.operationId;
      if (this.options.fault) {
        const injected = await this.options.fault(op.operationId, info);
        if (injected) return injected;
      }
      const guardHeaders: Record<string, string> = {};
      if (op.access === 'public') {
        for (const g of this.guards) Object.assign(guardHeaders, g.before?.(op, info)?.headers ?? {});
      }
      const search = url.search;
      let run = () => this.run(op, match.params, search, info);
      if (op.access === 'public') {
        for (const g of this.guards) {
          if (g.around) {
            const inner = run;
            run = () => g.around!(op, info, inner);
          }
        }
      }
      const res = await run().catch((err) => this.fail(err, info));
      Object.assign(res.headers, guardHeaders);
      if (op.access === 'bearer' || op.access === 'token') res.headers['Cache-Control'] = 'no-store';
      return res;
    } catch (err) {
      return this.fail(err, info);
    }
  }

  private mountFor(pathname: string): Mount | undefined {
    for (const m of this.mounts) if (pathname === m.prefix || pathname.startsWith(`${m.prefix}/`)) return m;
    return undefined;
  }

  private async run(op: AnyOperation, pathParams: Record<string, string>, search: string, info: RequestInfo): Promise<AppResponse> {
    // Ids in any case name the same record (RFC 4122): lower case before any lookup.
    const rawParams = normalizeUuids(op.params, pathParams) as Record<string, string>;
    let auth: AuthContext | null = null;
    if (op.access === 'bearer' || op.access === 'token') {
      try {
        auth = authenticate(this.store, header(info.headers, 'authorization'), this.clock.now(), info.audience);
      } catch (err) {
        throw withResourceMetadata(err, `${info.origin}/.well-known/oauth-protected-resource`);
      }
      requireAbility(auth, op);
    }
    // Path parameters: a malformed id names nothing, so it is that resource's 404.
    const paramsResult = op.params.safeParse(rawParams);
    const bad = paramsResult.success ? null : String(paramsResult.error.issues[0]?.path[0] ?? '');
    if (auth && 'workspace' in rawParams) {
      if (bad === 'workspace') throw notFound('workspace_not_found', rawParams.workspace);
      requireMembership(this.store, auth, rawParams.workspace);
    }
    if (bad !== null) throw notFound((op.notFound?.[bad] ?? 'not_found') as `${string}_not_found`, rawParams[bad] ?? '');
    const params = paramsResult.data;

    // Query: every parameter once, known names only.
    // No prototype: `toString` or `constructor` are names like any other, `__proto__` an own key.
    // (Most requests have no query: they share one empty, frozen object and skip the counting.)
    let rawQuery: Record<string, string> = NO_QUERY;
    let queryErrors: Record<string, string[]> | null = null;
    if (search.length > 1) {
      rawQuery = Object.create(null);
      queryErrors = Object.create(null);
      for (const [k, v] of new URLSearchParams(search)) {
        if (Object.hasOwn(rawQuery, k)) queryErrors![k] = ['Given more than once.'];
        rawQuery[k] = v;
      }
    }
    const q = op.query.safeParse(rawQuery);
    if (!q.success || (queryErrors && Object.keys(queryErrors).length)) {
      throw validationFailed({ ...queryErrors, ...(q.success ? {} : fieldErrors(q.error.issues)) }, 'Invalid query parameters.');
    }

    let body: unknown = undefined;
    if (op.body) {
      const raw = info.rawBody;
      // The HTTP adapter stops reading at the limit; this covers callers that hand a body over directly.
      if (raw.length > MAX_BODY_BYTES) throw new ProblemError('payload_too_large', { detail: `The body is ${raw.length} bytes; the limit is ${MAX_BODY_BYTES} bytes (1 MiB).` });
      const type = header(info.headers, 'content-type');
      if (raw.length === 0 && !type) {
        // No body at all: an empty object, which optional bodies accept and PATCH bodies refuse (422).
        body = {};
      } else {
        if (!type || !JSON_TYPE.test(type)) {
          throw new ProblemError('unsupported_media_type', { detail: `The body must be sent as \`application/json\`; received ${type ? `\`${type}\`` : 'no Content-Type'}.` });
        }
        body = parseJson(raw, op.bodyOptional);
      }
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw validationFailed({ '(body)': ['The body must be a JSON object.'] });
      }
      const b = op.body.safeParse(body);
      if (!b.success) throw validationFailed(fieldErrors(b.error.issues));
      body = normalizeUuids(op.body, b.data);
    }

    const handler = this.handlers[op.operationId];
    if (!handler) {
      throw new ProblemError('not_implemented', { detail: `\`${op.operationId}\` is in the contract but this server does not implement it yet.` });
    }
    const ctx: HandlerContext = {
      params, query: q.data, body, auth, store: this.store, clock: this.clock, request: info, services: this.services,
    };
    const result = await handler(ctx as never);
    if (result instanceof Reply) {
      return this.json(result.status ?? op.status, { data: result.data, meta: { request_id: info.id } }, info, result.headers);
    }
    if (op.list) {
      const page = result as { items: unknown[]; next_cursor: string | null };
      const meta = { request_id: info.id, next_cursor: page.next_cursor };
      if (page.items.length && page.items.every((i) => i instanceof JsonItem)) {
        // Items serialized once per record (paging.ts cachedJson): splice their text in.
        const parts: Buffer[] = [PAGE_HEAD];
        for (let i = 0; i < page.items.length; i++) {
          if (i) parts.push(COMMA);
          parts.push((page.items[i] as JsonItem).bytes);
        }
        parts.push(Buffer.from(`],"meta":${JSON.stringify(meta)}}`));
        return partsResponse(op.status, this.baseHeaders(info, 'application/json; charset=utf-8'), parts);
      }
      return this.json(op.status, { data: page.items, meta }, info, {});
    }
    return this.json(op.status, { data: result, meta: { request_id: info.id } }, info, {});
  }

  private baseHeaders(info: RequestInfo, type: string): Record<string, string> {
    return { 'Content-Type': type, 'X-Request-Id': info.id, 'X-Content-Type-Options': 'nosniff' };
  }

  json(status: number, body: unknown, info: RequestInfo, headers: Record<string, string>): AppResponse {
    const all = this.baseHeaders(info, 'application/json; charset=utf-8');
    for (const k in headers) all[k] = headers[k];
    return { status, headers: all, body: JSON.stringify(body) };
  }

  /** The one place an error becomes a response: typed problems as they are, anything else a 500. */
  fail(err: unknown, info: RequestInfo): AppResponse {
    let p: ProblemError;
    if (err instanceof ProblemError) p = err;
    else {
      this.options.onError?.(err, info);
      p = new ProblemError('internal_error', { detail: 'The server failed to handle this request. Nothing was changed.' });
    }
    return {
      status: p.status,
      headers: { ...this.baseHeaders(info, 'application/problem+json; charset=utf-8'), ...p.headers },
      body: JSON.stringify(problemBody(p, info.path, info.id)),
    };
  }
}

function methodNotAllowed(allow: string[]): ProblemError {
  return new ProblemError('method_not_allowed', {
    detail: `Allowed methods: ${allow.join(', ')}.`,
    headers: { Allow: allow.join(', ') },
  });
}

/** Strict UTF-8 (a leading BOM is dropped). Not streaming, so one decoder serves every request. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

function parseJson(raw: Buffer, optional?: boolean): unknown {
  if (raw.length === 0) {
    if (optional) return {};
    throw new ProblemError('invalid_json', { detail: 'The body is empty; send a JSON object.' });
  }
  let text: string;
  try {
    text = UTF8.decode(raw);
  } catch {
    throw new ProblemError('invalid_json', { detail: 'The body is not valid UTF-8.' });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ProblemError('invalid_json', { detail: `The body is not valid JSON: ${(err as Error).message}.` });
  }
}

export { PROBLEM_KINDS };
