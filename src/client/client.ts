import { randomUUID } from 'node:crypto';
import { getOperation, type AnyOperation } from '../contract/operations.js';
import { ApiError, CliError, EXIT, type ProblemJson } from '../cli/errors.js';

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
}

export interface RequestOptions {
  method: string;
  /** Relative to the base URL, e.g. `/workspaces/…/lists`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
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

function fillPath(op: AnyOperation, params: Record<string, string | undefined>): string {
  return op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined || v === '') throw new CliError(`Missing path parameter \`${name}\` for ${op.operationId}.`, EXIT.usage);
    return encodeURIComponent(v);
  });
}

let dispatcherPromise: Promise<unknown> | null = null;

/** One keep-alive agent per process, honouring HTTP(S)_PROXY and NO_PROXY. */
async function dispatcher(env: NodeJS.ProcessEnv): Promise<unknown> {
  dispatcherPromise ??= import('undici').then((u) => {
    const proxied = env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy;
    return proxied ? new u.EnvHttpProxyAgent() : new u.Agent({ keepAliveTimeout: 10_000, connections: 16 });
  });
  return dispatcherPromise;
}

/** The HTTP client for any wcm instance. */
export class ApiClient {
  constructor(readonly options: ClientOptions) {}

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  /** Sends a request with bounded retries; non-2xx answers throw ApiError. */
  async request<T = unknown>(req: RequestOptions): Promise<ApiResponse<T>> {
    const { request } = await import('undici');
    const url = new URL(this.options.baseUrl + req.path);
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    const headers: Record<string, string> = {
      'user-agent': this.options.userAgent,
      accept: 'application/json',
      ...req.headers,
    };
    if (this.options.token && !req.anonymous) headers.authorization = `Bearer ${this.options.token}`;
    if (req.idempotencyKey) headers['idempotency-key'] = req.idempotencyKey;
    let payload: string | undefined;
    if (req.body !== undefined) {
      payload = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    const method = req.method.toUpperCase();
    const retryNetwork = IDEMPOTENT.has(method) || !!req.idempotencyKey;
    const retries = this.options.retries ?? 3;
    const maxWait = this.options.maxRetryWaitMs ?? 30_000;
    const sleep = this.options.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
    const debug = this.options.debug;
    const agent = await dispatcher(this.options.env ?? process.env);

    for (let attempt = 0; ; attempt++) {
      debug?.(`> ${method} ${url.href}${req.idempotencyKey ? ` (Idempotency-Key: ${req.idempotencyKey})` : ''}${attempt ? ` [retry ${attempt}]` : ''}`);
      const started = Date.now();
      let status: number;
      let resHeaders: Record<string, string>;
      let text: string;
      try {
        const res = await request(url, {
          method: method as 'GET',
          headers,
          body: payload,
          dispatcher: agent as never,
          headersTimeout: this.options.timeoutMs ?? 30_000,
          bodyTimeout: this.options.timeoutMs ?? 30_000,
        });
        status = res.statusCode;
        resHeaders = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
        text = await res.body.text();
      } catch (err) {
        const msg = (err as Error).message || String(err);
        debug?.(`< network error after ${Date.now() - started} ms: ${msg}`);
        if (retryNetwork && attempt < retries) {
          await sleep(backoff(attempt));
          continue;
        }
        throw new CliError(`Could not reach ${url.origin}: ${msg}.`, EXIT.failure, 'Is the server running? Check the base URL with `wcm auth status`.');
      }
      debug?.(`< ${status} ${resHeaders['x-request-id'] ?? ''} (${Date.now() - started} ms)`);
      if ((status === 429 || status === 503) && attempt < retries) {
        const after = retryAfterMs(resHeaders['retry-after']);
        const wait = after ?? backoff(attempt);
        if (wait <= maxWait) {
          debug?.(`  waiting ${wait} ms before retrying`);
          await sleep(wait);
          continue;
        }
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
      const problem: ProblemJson = body && typeof body === 'object' ? (body as ProblemJson) : { title: `HTTP ${status}`, detail: String(text).slice(0, 200) || `The server answered ${status}.` };
      if (!problem.request_id && resHeaders['x-request-id']) problem.request_id = resHeaders['x-request-id'];
      throw new ApiError(status, problem);
    }
  }

  /** Calls an operation of the contract by its operationId. */
  async call<T = unknown>(
    operationId: string,
    input: { params?: Record<string, string | undefined>; query?: RequestOptions['query']; body?: unknown; idempotencyKey?: string } = {},
  ): Promise<ApiResponse<Envelope<T>>> {
    const op = getOperation(operationId);
    if (!op) throw new CliError(`Unknown operation \`${operationId}\`.`, EXIT.usage);
    let idempotencyKey = input.idempotencyKey;
    if (op.idempotent && !idempotencyKey) idempotencyKey = randomUUID();
    return this.request<Envelope<T>>({
      method: op.method,
      path: fillPath(op, input.params ?? {}),
      query: input.query,
      body: input.body,
      idempotencyKey,
      anonymous: op.access === 'public',
    });
  }

  /** Follows `meta.next_cursor` page by page, from `cursor` (or the start) to the end. */
  async *pages<T = unknown>(
    operationId: string,
    input: { params?: Record<string, string | undefined>; query?: RequestOptions['query'] } = {},
  ): AsyncGenerator<Envelope<T[]>> {
    let cursor = input.query?.cursor as string | undefined;
    for (;;) {
      const res = await this.call<T[]>(operationId, { ...input, query: { ...input.query, cursor } });
      yield res.body;
      cursor = res.body.meta.next_cursor ?? undefined;
      if (!cursor) return;
    }
  }
}

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
