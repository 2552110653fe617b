import { randomUUID } from 'node:crypto';
import { routeOf, type OperationId, type Route } from '../contract/table.js';
import type { DataOf, ItemOf, ListOperationId } from '../contract/types.js';
import { ApiError, ClientError, type ProblemJson } from './errors.js';
import { missingExtension, problemOf, STATUS_TEXT, unreachable } from './failures.js';
import { BodyTooLargeError, transportFor } from './transport.js';

export interface ClientOptions {
  baseUrl: string;
  token?: string;
  userAgent: string;
  /** Called with one line per request and response; the token never appears in it. */
  debug?: (line: string) => void;
  /** Retries after the first attempt. */
  retries?: number;
  /** Longest `Retry-After` the client will wait; longer ones fail at once. */
  maxRetryWaitMs?: number;
  timeoutMs?: number;
  /** Injected in tests so backoff does not slow them down. */
  sleep?: (ms: number) => Promise<void>;
  env?: NodeJS.ProcessEnv;
  /** Called before an operation is sent (`--json` field names are checked here, so a typo sends nothing). */
  beforeCall?: (operationId: string) => Promise<void>;
  /**
   * A new access token when the server refuses this one (401 `invalid_token`: expired by the
   * server's clock, not only by ours): an OAuth profile's refresh. Called at most once per client.
   */
  renewToken?: () => Promise<string>;
  /** Also retry 500, 502 and 504 (with backoff) on idempotent requests: long runs such as `wcm pull`. */
  retryServerErrors?: boolean;
  /** Largest response body accepted (default MAX_RESPONSE_BYTES, 64 MiB); a longer one fails the request. */
  maxResponseBytes?: number;
}

export interface RequestOptions {
  method: string;
  /** Relative to the base URL, e.g. `/workspaces/…/lists`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** A body sent as is (with `Content-Type: application/json` unless `headers` say otherwise). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Sent as `Idempotency-Key`; the same on every retry. */
  idempotencyKey?: string;
  /** Send without the Authorization header (public operations). */
  anonymous?: boolean;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Record<string, string>;
  body: T;
}

export interface Envelope<T = unknown> {
  data: T;
  meta: { request_id: string; next_cursor?: string | null };
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

function fillPath(operationId: string, route: Route, params: Record<string, string | undefined>): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined || v === '')
      throw new ClientError(`Missing path parameter \`${name}\` for ${operationId}.`, 'usage');
    return encodeURIComponent(v);
  });
}

/** The HTTP client for any wcm instance. */
export class ApiClient {
  /** The token `renewToken` gave, used from then on. */
  private renewed: string | undefined;
  constructor(readonly options: ClientOptions) {}

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  /** Sends a request with bounded retries; non-2xx answers throw ApiError. */
  async request<T = unknown>(req: RequestOptions): Promise<ApiResponse<T>> {
    const url = new URL(this.options.baseUrl + req.path);
    for (const [k, v] of Object.entries(req.query ?? {}))
      if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    const headers: Record<string, string> = {
      'user-agent': this.options.userAgent,
      accept: 'application/json',
      ...req.headers,
    };
    let token = this.renewed ?? this.options.token;
    if (token && !req.anonymous) headers.authorization = `Bearer ${token}`;
    if (req.idempotencyKey) headers['idempotency-key'] = req.idempotencyKey;
    let payload: string | undefined;
    if (req.rawBody !== undefined) {
      payload = req.rawBody;
      headers['content-type'] ??= 'application/json';
    } else if (req.body !== undefined) {
      payload = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    const method = req.method.toUpperCase();
    const retryNetwork = IDEMPOTENT.has(method) || !!req.idempotencyKey;
    const retries = this.options.retries ?? 3;
    const maxWait = this.options.maxRetryWaitMs ?? 30_000;
    const sleep = this.options.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
    // Every debug line passes through here: the token is cut out whatever the line says.
    const debug = this.options.debug
      ? (line: string) => this.options.debug!(token ? line.split(token).join('[REDACTED]') : line)
      : undefined;
    const send = await transportFor(url, this.options.env ?? process.env);
    const timeout = this.options.timeoutMs ?? 30_000;

    for (let attempt = 0; ; attempt++) {
      debug?.(`> ${method} ${url.href}${attempt ? `  (retry ${attempt} of ${retries})` : ''}`);
      for (const [k, v] of Object.entries(headers))
        debug?.(`> ${k}: ${k === 'authorization' ? 'Bearer [REDACTED]' : v}`);
      const started = Date.now();
      let status: number;
      let resHeaders: Record<string, string>;
      let text: string;
      try {
        ({
          status,
          headers: resHeaders,
          text,
        } = await send({
          method,
          url,
          headers,
          body: payload,
          timeoutMs: timeout,
          maxBytes: this.options.maxResponseBytes,
        }));
      } catch (err) {
        // Never retried: the same server would send the same endless body again.
        if (err instanceof BodyTooLargeError) {
          debug?.(`< body cut off after ${err.maxBytes} bytes`);
          throw new ClientError(
            `The response from ${url.origin} was larger than ${err.maxBytes / 1024 / 1024} MiB; wcm stopped reading it.`,
            'protocol',
            'A server answering this request should send far less; check the base URL, or that the server is wcm.',
          );
        }
        const e = err as Error & { code?: string; cause?: { code?: string } };
        const msg = [e.code ?? e.cause?.code, e.message].filter(Boolean).join(' ') || String(err);
        debug?.(`< network error after ${Date.now() - started} ms: ${msg}`);
        if (retryNetwork && attempt < retries) {
          const wait = backoff(attempt);
          debug?.(`  waiting ${wait} ms before retrying`);
          await sleep(wait);
          continue;
        }
        throw unreachable(url, e.code ?? e.cause?.code, msg, attempt + 1);
      }
      debug?.(
        `< ${status} ${STATUS_TEXT[status] ?? ''} (${Date.now() - started} ms)${resHeaders['x-request-id'] ? ` request id ${resHeaders['x-request-id']}` : ''}`,
      );
      for (const k of ['content-type', 'retry-after', 'idempotent-replayed', 'ratelimit-remaining']) {
        if (resHeaders[k] !== undefined) debug?.(`< ${k}: ${resHeaders[k]}`);
      }
      // 409 on a request with an Idempotency-Key: the first request with that key is still running
      // (idempotency_key_in_use). Waiting and resending the same key gets its result.
      const inFlight = status === 409 && !!req.idempotencyKey;
      const serverError =
        !!this.options.retryServerErrors && retryNetwork && (status === 500 || status === 502 || status === 504);
      if ((status === 429 || status === 503 || inFlight || serverError) && attempt < retries) {
        const after = retryAfterMs(resHeaders['retry-after']);
        const wait = after ?? backoff(attempt);
        if (wait <= maxWait) {
          debug?.(`  waiting ${wait} ms before retrying (${after !== null ? 'Retry-After' : 'backoff'})`);
          await sleep(wait);
          continue;
        }
        debug?.(`  Retry-After of ${wait} ms is over the ${maxWait} ms limit: not retrying`);
      }
      let body: unknown = text;
      if (text && /json/.test(resHeaders['content-type'] ?? '')) {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      if (status >= 200 && status < 300) return { status, headers: resHeaders, body: body as T };
      if (
        status === 401 &&
        headers.authorization &&
        this.options.renewToken &&
        this.renewed === undefined &&
        (body as ProblemJson | undefined)?.code === 'invalid_token'
      ) {
        debug?.('  the server refused the token: renewing it once and sending again');
        token = this.renewed = await this.options.renewToken();
        headers.authorization = `Bearer ${token}`;
        continue;
      }
      const problem = problemOf(status, body, text, resHeaders, attempt);
      throw new ApiError(status, problem, {
        attempts: attempt + 1,
        retryAfter: resHeaders['retry-after'],
        headers: resHeaders,
      });
    }
  }

  /** Calls an operation of the contract by its operationId; the data is typed from the contract's schema. */
  async call<K extends OperationId, T = DataOf<K>>(
    operationId: K,
    input: {
      params?: Record<string, string | undefined>;
      query?: RequestOptions['query'];
      body?: unknown;
      idempotencyKey?: string;
    } = {},
  ): Promise<ApiResponse<Envelope<T>>> {
    const op = routeOf(operationId);
    if (!op) throw new ClientError(`Unknown operation \`${operationId}\`.`, 'usage');
    await this.options.beforeCall?.(operationId);
    let idempotencyKey = input.idempotencyKey;
    if (op.idempotent && !idempotencyKey) idempotencyKey = randomUUID();
    const sent = this.request<Envelope<T>>({
      method: op.method,
      path: fillPath(operationId, op, input.params ?? {}),
      query: input.query,
      body: input.body,
      idempotencyKey,
      anonymous: op.access === 'public',
    });
    return op.extension ? sent.catch((err) => Promise.reject(missingExtension(err, operationId, op))) : sent;
  }

  /** Follows `meta.next_cursor` page by page, from `cursor` (or the start) to the end. */
  async *pages<K extends ListOperationId, T = ItemOf<K>>(
    operationId: K,
    input: { params?: Record<string, string | undefined>; query?: RequestOptions['query'] } = {},
  ): AsyncGenerator<Envelope<T[]>> {
    let cursor = input.query?.cursor as string | undefined;
    const seen = new CursorTrail(operationId);
    seen.add(cursor);
    for (;;) {
      const res = await this.call<K, T[]>(operationId, { ...input, query: { ...input.query, cursor } });
      yield res.body;
      cursor = res.body.meta?.next_cursor ?? undefined;
      if (!cursor) return;
      // A server that hands back a cursor it gave before (A, B, A, …) would loop forever.
      seen.add(cursor);
    }
  }
}

/** Exponential backoff with jitter: 250 ms, 500 ms, 1 s, … capped at 4 s. */
function backoff(attempt: number): number {
  return Math.min(250 * 2 ** attempt, 4000) + Math.floor(Math.random() * 100);
}

function retryAfterMs(value: string | undefined): number | null {
  if (!value) return null;
  const secs = Number(value);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/**
 * The cursors a paging loop has followed: one given again means the server sends the pages
 * around in a circle (A, B, A, B…), and following it would never end.
 */
export class CursorTrail {
  private readonly cursors = new Set<string>();
  constructor(private readonly what: string) {}
  add(cursor: string | undefined): void {
    if (cursor === undefined) return;
    if (this.cursors.has(cursor))
      throw new ClientError(
        `The server gave a cursor for ${this.what} that it had given before (after ${this.cursors.size} pages); the pages go round in a circle, so wcm stopped.`,
        'protocol',
      );
    this.cursors.add(cursor);
  }
}
