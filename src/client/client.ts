import { randomUUID } from 'node:crypto';
import { routeOf, type OperationId, type Route } from '../contract/table.js';
import type { DataOf, ItemOf, ListOperationId } from '../contract/types.js';
import { ApiError, ClientError, type ProblemJson } from './errors.js';
import { transportFor } from './transport.js';

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

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * One sentence for a server that cannot be reached (issue 37: not "ECONNREFUSED connect
 * ECONNREFUSED"), and a hint that does not send the user to a command that fails the same way.
 */
export function unreachable(url: URL, code: string | undefined, raw: string, attempts: number): ClientError {
  const tries = attempts > 1 ? ` (tried ${attempts} times)` : '';
  const what: Record<string, string> = {
    ECONNREFUSED: `No server is answering at ${url.origin}${tries}: the connection was refused.`,
    ENOTFOUND: `The host name ${url.hostname} does not resolve${tries}.`,
    EAI_AGAIN: `The host name ${url.hostname} could not be resolved just now${tries}.`,
    ETIMEDOUT: `${url.origin} did not answer in time${tries}.`,
    UND_ERR_CONNECT_TIMEOUT: `${url.origin} did not answer in time${tries}.`,
    ECONNRESET: `${url.origin} closed the connection${tries}.`,
  };
  const hint = LOOPBACK.test(url.hostname)
    ? `Start the local server with \`wcm serve\` (in another terminal), or point at another one with \`--base-url\`.`
    : 'Check that the server is up and the base URL is right: `wcm auth status` shows the saved target; `--base-url` or WCM_BASE_URL change it.';
  return new ClientError((code && what[code]) || `Could not reach ${url.origin}${tries}: ${raw}.`, 'unreachable', hint);
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
        } = await send({ method, url, headers, body: payload, timeoutMs: timeout }));
      } catch (err) {
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
      if ((status === 429 || status === 503 || inFlight) && attempt < retries) {
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
      const problem: ProblemJson =
        body && typeof body === 'object' && !Array.isArray(body)
          ? { ...(body as ProblemJson) }
          : {
              title: STATUS_TEXT[status] ?? `HTTP ${status}`,
              status,
              detail: text ? String(text).slice(0, 200) : `The server answered ${status}.`,
            };
      if (!problem.request_id && resHeaders['x-request-id']) problem.request_id = resHeaders['x-request-id'];
      // Redirects are never followed (a token must not travel to another host): say where it pointed.
      if (status >= 300 && status < 400 && !problem.resolution) {
        const to = resHeaders.location ? ` to ${resHeaders.location}` : '';
        problem.detail = `The server answered ${status}, a redirect${to}; wcm does not follow redirects, so no token goes to another address.`;
        problem.resolution =
          'If the API has moved, point the base URL there (`--base-url`, or `wcm auth login --base-url …` for a profile).';
      }
      if ((status === 429 || status === 503) && attempt > 0 && !problem.resolution) {
        problem.resolution = `Still ${status} after ${attempt + 1} attempts; wait a little and try again.`;
      }
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
    for (;;) {
      const res = await this.call<K, T[]>(operationId, { ...input, query: { ...input.query, cursor } });
      yield res.body;
      const next = res.body.meta?.next_cursor ?? undefined;
      // A server that hands back the cursor it was given would loop forever.
      if (next && next === cursor)
        throw new ClientError(`The server returned the same cursor twice for ${operationId}; stopping.`, 'protocol');
      cursor = next;
      if (!cursor) return;
    }
  }
}

/**
 * An instance without an extension (a server that only has the seed contract, or an older wcm)
 * answers 404 `route_not_found`: say that plainly, not "Route not found". Exit 5, as for any 404.
 */
function missingExtension(err: unknown, operationId: string, route: Route): unknown {
  if (!(err instanceof ApiError) || err.status !== 404 || err.problem.code !== 'route_not_found') return err;
  return new ClientError(
    `This server does not have the \`${operationId}\` operation (${route.method} ${route.path}).`,
    'missing',
    "It is an extension of wcm's local server (`wcm serve`); this instance lacks it. Pass the id yourself, or use a server that has it.",
  );
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

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
