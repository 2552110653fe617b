import type { ServerResponse } from 'node:http';

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
}

export const LOG_CAPACITY = 10_000;

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

const SECRET_KEYS = /("?(?:authorization|token|access_token|refresh_token|client_secret|code_verifier|code|password|secret|card_number|number|cvc)"?\s*[:=]\s*"?)([^"&,}\s]+)/gi;
const CARDISH = /\b(?:\d[ -]?){13,19}\b/g;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
const TOKENISH = /\bwcm_(?:pat|oat|ort|code|secret|admin)_[A-Za-z0-9]+/g;
/** What a logged body may show: secrets, tokens, card-like numbers and e-mail addresses masked. */
export function maskBody(text: string): string {
  return text
    .slice(0, 4096)
    .replace(TOKENISH, (t) => `${t.slice(0, t.indexOf('_', 4) + 1)}…`)
    .replace(SECRET_KEYS, (_, k: string) => `${k}***`)
    .replace(CARDISH, '****')
    .replace(EMAIL, '***@***');
}

/**
 * The last 10,000 requests in a ring, and live subscribers (SSE). Recording is one object and a
 * slot write per request: cheap enough for the hot path.
 */
export class RequestLog {
  private readonly ring: Stored[] = [];
  private next = 0;
  private seq = 0;
  private readonly subscribers = new Set<(e: LoggedRequest) => void>();
  constructor(readonly logBodies = false, private readonly capacity = LOG_CAPACITY) {}

  /**
   * One request. Its time is kept as a number and written out as ISO text only when the log is
   * read: formatting it per request was most of what logging cost the hot path.
   */
  record(at: number, method: string, path: string, operation: string | null, status: number, durationMs: number, requestId: string, problem: string | null, client: string, body?: string): void {
    const entry: Stored = { seq: ++this.seq, at, time: '', method, path, operation, status, duration_ms: durationMs, request_id: requestId, problem, client };
    if (body !== undefined) entry.request_body = body;
    if (this.ring.length < this.capacity) this.ring.push(entry);
    else this.ring[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
    if (this.subscribers.size) {
      const out = shown(entry);
      for (const s of this.subscribers) s(out);
    }
  }

  /** Oldest first, filtered; `limit` keeps the newest. */
  query(f: LogFilter = {}): LoggedRequest[] {
    const all = this.ring.length < this.capacity ? this.ring : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
    const out = all.filter((e) => (f.since === undefined || e.seq > f.since) && statusMatches(f.status, e.status) && (!f.operation || e.operation === f.operation));
    return (f.limit !== undefined ? out.slice(-f.limit) : out).map(shown);
  }

  clear(): void {
    this.ring.length = 0;
    this.next = 0;
  }

  /** Server-Sent Events: every matching request as it finishes, until the client goes away. */
  stream(res: ServerResponse, f: LogFilter): void {
    const send = (e: LoggedRequest) => {
      if (statusMatches(f.status, e.status) && (!f.operation || e.operation === f.operation)) res.write(`id: ${e.seq}\nevent: request\ndata: ${JSON.stringify(e)}\n\n`);
    };
    res.write(': wcm request log\n\n');
    for (const e of this.query(f)) send(e);
    this.subscribers.add(send);
    const beat = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
    res.on('close', () => {
      clearInterval(beat);
      this.subscribers.delete(send);
    });
  }
}
