import type { ServerResponse } from 'node:http';
import type { AppResponse } from '../app.js';
import { ProblemError } from '../problems.js';

/** One request as the log keeps it (docs/server.md: Controlling a running server). */
export interface LoggedRequest {
  seq: number;
  time: string;
  method: string;
  path: string;
  operation: string | null;
  status: number;
  duration_ms: number;
  request_id: string;
  problem: string | null;
  client: string;
  /** Only with `wcm serve --log-bodies`, masked. */
  request_body?: string;
}

export interface LogFilter {
  limit?: number;
  since?: number;
  status?: string;
  operation?: string;
  /** Also the server's own pages and probes (see isOwnTraffic), left out otherwise. */
  all?: boolean;
}

/**
 * The server's own traffic: the dashboard's pages, its assets, `/healthz` and the favicon. Logged,
 * but left out of the log's views unless asked for (`wcm logs --all`): a CI check such as
 * `wcm logs --status 4xx` is about the API's callers, not a browser tab or a health probe.
 */
export function isOwnTraffic(path: string): boolean {
  return (
    path === '/healthz' ||
    path === '/favicon.ico' ||
    path === '/dashboard' ||
    path.startsWith('/dashboard/') ||
    path.startsWith('/assets/')
  );
}

/** Whether a logged request passes a filter (all but `limit` and `since`). */
function matches(f: LogFilter, e: LoggedRequest): boolean {
  return (
    statusMatches(f.status, e.status) &&
    (!f.operation || e.operation === f.operation) &&
    (!!f.all || !isOwnTraffic(e.path))
  );
}

export const LOG_CAPACITY = 10_000;
/** Live streams at once (TRUST §5): each holds a socket and, while it lags, a buffer. */
export const STREAM_SUBSCRIBERS = 16;
/** Entries a stream replays on connect: the rest are for `GET …/requests`, which pages. */
export const STREAM_REPLAY = 500;
/** A subscriber whose socket has this much unsent is not reading: it is closed, not buffered for. */
export const STREAM_BUFFER_BYTES = 1024 * 1024;

/** The answer to a stream beyond the cap: 429, retry once another subscriber has gone. */
export const streamsBusy = (): ProblemError =>
  new ProblemError('rate_limited', {
    detail: `The request log already has ${STREAM_SUBSCRIBERS} live streams open; close one (or read \`GET /_emulator/requests?since=SEQ\`) and retry.`,
    headers: { 'Retry-After': '5' },
  });

/** A `…/requests/stream` answer: Server-Sent Events written by `stream` (RequestLog.stream). */
export const eventStream = (requestId: string, stream: (res: ServerResponse) => void): AppResponse => ({
  status: 200,
  headers: {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'X-Request-Id': requestId,
  },
  body: '',
  stream,
});

/**
 * What a dashboard session may see of the log: only requests to its own workspaces, never bodies.
 * The admin token (control plane) sees everything.
 */
export interface LogScope {
  workspaces: ReadonlySet<string>;
}

const WORKSPACE_IN_PATH = /^(?:\/v1)?\/workspaces\/([^/?#]+)/;
/** Whether a scope may see an entry: its path names one of the scope's workspaces. */
function inScope(scope: LogScope, path: string): boolean {
  const m = WORKSPACE_IN_PATH.exec(path);
  return !!m && scope.workspaces.has(m[1].toLowerCase());
}
function withoutBody(e: LoggedRequest): LoggedRequest {
  if (e.request_body === undefined) return e;
  const { request_body: _body, ...rest } = e;
  return rest;
}

/** As kept: the time as a number (`at`), its text filled in when first shown. */
interface Stored extends LoggedRequest {
  at: number;
}
function shown(e: Stored): LoggedRequest {
  if (!e.time) e.time = new Date(e.at).toISOString();
  const { at: _at, ...out } = e;
  return out;
}

/** `4xx`, `5xx`, `2xx`… or an exact status. */
export function statusMatches(filter: string | undefined, status: number): boolean {
  if (!filter) return true;
  const m = /^([1-5])xx$/i.exec(filter);
  return m ? Math.floor(status / 100) === Number(m[1]) : String(status) === filter;
}

export { maskBody } from './mask.js';

/**
 * The last 10,000 requests in a ring, and live subscribers (SSE). Recording is one object and a
 * slot write per request: cheap enough for the hot path.
 */
export class RequestLog {
  private readonly ring: Stored[] = [];
  private next = 0;
  private seq = 0;
  private readonly subscribers = new Set<(e: LoggedRequest) => void>();
  constructor(
    readonly logBodies = false,
    private readonly capacity = LOG_CAPACITY,
  ) {}

  /**
   * One request. Its time is kept as a number and written out as ISO text only when the log is
   * read: formatting it per request was most of what logging cost the hot path.
   */
  record(
    at: number,
    method: string,
    path: string,
    operation: string | null,
    status: number,
    durationMs: number,
    requestId: string,
    problem: string | null,
    client: string,
    body?: string,
  ): void {
    const entry: Stored = {
      seq: ++this.seq,
      at,
      time: '',
      method,
      path,
      operation,
      status,
      duration_ms: durationMs,
      request_id: requestId,
      problem,
      client,
    };
    if (body !== undefined) entry.request_body = body;
    if (this.ring.length < this.capacity) this.ring.push(entry);
    else this.ring[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
    if (this.subscribers.size) {
      const out = shown(entry);
      for (const s of this.subscribers) s(out);
    }
  }

  /** Oldest first, filtered; `limit` keeps the newest. A scope sees its workspaces only, without bodies. */
  query(f: LogFilter = {}, scope?: LogScope): LoggedRequest[] {
    const all =
      this.ring.length < this.capacity ? this.ring : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
    const out = all.filter(
      (e) => (f.since === undefined || e.seq > f.since) && matches(f, e) && (!scope || inScope(scope, e.path)),
    );
    const kept = (f.limit !== undefined ? out.slice(-f.limit) : out).map(shown);
    return scope ? kept.map(withoutBody) : kept;
  }

  clear(): void {
    this.ring.length = 0;
    this.next = 0;
  }

  /** Live streams now. */
  get streams(): number {
    return this.subscribers.size;
  }

  /** Whether another stream would exceed the cap: the caller answers 429 instead of streaming. */
  get full(): boolean {
    return this.subscribers.size >= STREAM_SUBSCRIBERS;
  }

  /**
   * Server-Sent Events: the last matching requests (at most 500), then every new one as it
   * finishes, until the client goes away. A client that stops reading is closed once 1 MB waits
   * for it, so a stalled subscriber costs a bounded buffer, not the server's memory.
   */
  stream(res: ServerResponse, f: LogFilter, scope?: LogScope): void {
    if (this.full) {
      res.end();
      return;
    }
    const write = (text: string) => {
      if (res.writableLength > STREAM_BUFFER_BYTES) res.destroy();
      else if (!res.destroyed) res.write(text);
    };
    const event = (e: LoggedRequest) =>
      `id: ${e.seq}\nevent: request\ndata: ${JSON.stringify(scope ? withoutBody(e) : e)}\n\n`;
    const send = (e: LoggedRequest) => {
      if (matches(f, e) && (!scope || inScope(scope, e.path))) write(event(e));
    };
    const replay = this.query({ ...f, limit: Math.min(f.limit ?? STREAM_REPLAY, STREAM_REPLAY) }, scope);
    res.write(': wcm request log\n\n' + replay.map(event).join(''));
    this.subscribers.add(send);
    const beat = setInterval(() => write(': keep-alive\n\n'), 15_000);
    res.on('close', () => {
      clearInterval(beat);
      this.subscribers.delete(send);
    });
  }
}

declare module '../context.js' {
  interface Services {
    requestLog?: RequestLog;
  }
}
