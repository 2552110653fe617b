import { clientKey } from './client-address.js';
import { createHash } from 'node:crypto';
import type { AnyOperation } from '../contract/operations.js';
import type { IdempotencyRecord } from '../store/records.js';
import type { IdempotencyClaims } from '../store/shared-state.js';
import type { Store } from '../store/store.js';
import type { Middleware, OperationCall } from './chain.js';
import type { AppResponse } from './response.js';
import { BASE_PATHS, header } from './request.js';
import { isoTime, type Clock } from './clock.js';
import type { RequestInfo } from './request.js';
import { ProblemError } from './problems.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** 8–120 visible ASCII characters (no spaces, no control characters). */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{8,120}$/;
const PRUNE_EVERY_MS = 60_000;

const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

/** The body as a stable string: JSON with sorted keys, so `{"a":1,"b":2}` and `{"b":2,"a":1}` match. */
export function bodyFingerprint(raw: Buffer): string {
  if (raw.length === 0) return sha256('{}');
  try {
    return sha256(canonicalJson(JSON.parse(raw.toString('utf8'))));
  } catch {
    return sha256(raw);
  }
}

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * Idempotency for public POSTs (Stripe's model). A key is scoped to the caller, the operation and
 * its canonical path target (the offer or agent), so one key cannot replay another route's or
 * another caller's answer. Only responses that
 * created something (2xx) are recorded: a request refused before or by the handler creates nothing,
 * so a corrected retry with the same key runs for real. Records persist in the store for 24 h and
 * are replayed byte for byte; the raw key is never stored, only its hash. A key whose request is
 * still running is in flight in this process's map; on PostgreSQL it is also claimed in the
 * database (`claims`), so a second process receiving it at the same moment does not run it again.
 */
export class IdempotencyGuard {
  /** Scoped key hash → body fingerprint, for requests still running in this process. */
  private readonly inFlight = new Map<string, string>();
  private lastPrune = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ttlMs = IDEMPOTENCY_TTL_MS,
    /** Shared by every process on the database (pg/shared-tables.ts); absent on the JSON store. */
    private readonly claims?: IdempotencyClaims,
  ) {}

  /** The chain's step: replays, refuses or records public POSTs that carry an Idempotency-Key. */
  readonly use: Middleware = (x, next) =>
    x.op.access === 'public' && x.op.idempotent ? this.around(x, next) : next(x);

  private async around(x: OperationCall, next: (x: OperationCall) => Promise<AppResponse>): Promise<AppResponse> {
    const { op, info: req } = x;
    const key = header(req.headers, 'idempotency-key');
    if (key === undefined || key === '') {
      throw new ProblemError('idempotency_key_required', {
        detail: `\`${op.operationId}\` needs an \`Idempotency-Key\` header so a retry cannot create a second ${what(op)}.`,
      });
    }
    if (!IDEMPOTENCY_KEY.test(key)) {
      throw new ProblemError('invalid_idempotency_key', {
        detail: `\`Idempotency-Key\` must be 8 to 120 visible ASCII characters; received ${key.length} character${key.length === 1 ? '' : 's'}${/^[\x21-\x7e]*$/.test(key) ? '' : ' including spaces or non-ASCII'}.`,
      });
    }
    const now = this.clock.now().getTime();
    // Not awaited: the deletes apply in memory at once; their fsync need not delay this request.
    void this.pruneExpired(now).catch(() => undefined);
    // The caller is part of the hashed id only: the stored scope names no address or token, so the
    // store keeps nothing that identifies a public visitor (the id hashes in the raw key, never stored).
    const scope = `${op.operationId} ${canonicalTarget(req.path)}`;
    const id = sha256(`${scope}\n${caller(req)}\n${key}`);
    const fingerprint = bodyFingerprint(req.rawBody);

    const running = this.inFlight.get(id);
    if (running !== undefined) throw inUse(op, running, fingerprint);
    const done = this.stored(id, now);
    if (done) return replay(op, done, fingerprint, req);

    this.inFlight.set(id, fingerprint);
    const record = (status: number, response: unknown): IdempotencyRecord => ({
      id,
      operation_id: op.operationId,
      scope,
      key: `sha256:${sha256(key)}`,
      body_sha256: fingerprint,
      status,
      response,
      created_at: isoTime(new Date(now)),
    });
    // Handlers that create something record the key in their own transaction (atomic with it).
    let recorded = false;
    x.idempotency = {
      record(tx, status, data) {
        tx.put('idempotency_keys', record(status, { data, meta: { request_id: req.id } }));
        recorded = true;
      },
    };
    let release: (() => Promise<void>) | undefined;
    try {
      if (this.claims) {
        const claimed = await this.claims.claim(id, fingerprint);
        if ('heldFor' in claimed) throw inUse(op, claimed.heldFor, fingerprint);
        release = claimed.release;
        const doneMeanwhile = await this.storedAfterSync(id, now);
        if (doneMeanwhile) return replay(op, doneMeanwhile, fingerprint, req);
      }
      const res = await next(x);
      if (res.status >= 200 && res.status < 300 && !recorded) {
        await this.store.transact((tx) => tx.put('idempotency_keys', record(res.status, JSON.parse(res.body))));
      }
      return res;
    } finally {
      this.inFlight.delete(id);
      // Left in place if the database is down: the claim expires by itself.
      await release?.().catch(() => undefined);
    }
  }

  private stored(id: string, now: number): IdempotencyRecord | undefined {
    const done = this.store.get('idempotency_keys', id);
    return done && !this.expired(done, now) ? done : undefined;
  }

  /**
   * The record as every process has committed it by now. Another process may have stored its
   * answer and released the key after this request's sync: a sync already under way may have read
   * the journal before that, so a second one, started after this claim, is what surely sees it.
   */
  private async storedAfterSync(id: string, now: number): Promise<IdempotencyRecord | undefined> {
    await this.store.sync();
    await this.store.sync();
    return this.stored(id, now);
  }

  private expired(rec: IdempotencyRecord, now: number): boolean {
    return Date.parse(rec.created_at) + this.ttlMs <= now;
  }

  /** Drops records past their 24 h, at most once a minute (and at start-up). */
  async pruneExpired(now = this.clock.now().getTime()): Promise<number> {
    if (now - this.lastPrune < PRUNE_EVERY_MS && now >= this.lastPrune) return 0;
    this.lastPrune = now;
    const stale = [...this.store.values('idempotency_keys')].filter(
      (r) => this.expired(r, now) && !this.inFlight.has(r.id),
    );
    if (stale.length) await this.store.transact((tx) => stale.forEach((r) => tx.delete('idempotency_keys', r.id)));
    return stale.length;
  }
}

const UUID_SEGMENT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/**
 * The target as the router sees it: `/v1/…` and `/api/v1/…` alike, ids lower-cased, no trailing
 * slash. The router matches `/OFFERS/ABC…/` as `/offers/abc…`: a key scoped to the raw path let an
 * upper-cased id create a second order with the same key and body.
 */
export function canonicalTarget(path: string): string {
  const base = [...BASE_PATHS].sort((a, b) => b.length - a.length).find((b) => path.startsWith(`${b}/`));
  const target = (base ? path.slice(base.length) : path).replace(/\/+$/, '') || '/';
  return target
    .split('/')
    .map((s) => (UUID_SEGMENT.test(s) ? s.toLowerCase() : s))
    .join('/');
}

/**
 * Who sent the key (TRUST §5): its bearer token (hashed), else the client address (IPv6 by its /64, as
 * the rate limits). Two callers never share a key.
 */
function caller(req: RequestInfo): string {
  const auth = header(req.headers, 'authorization');
  return auth ? `token:${sha256(auth.trim()).slice(0, 32)}` : `client:${clientKey(req.remoteAddress)}`;
}

function what(op: AnyOperation): string {
  return op.operationId === 'createPaymentIntent' ? 'order and charge' : 'record';
}

/** The first response again, byte for byte, or a 422 when this key came with another body. */
function replay(op: AnyOperation, done: IdempotencyRecord, fingerprint: string, req: RequestInfo): AppResponse {
  if (done.body_sha256 !== fingerprint) throw reused(op);
  const response = done.response as { meta?: { request_id?: string } };
  return {
    status: done.status,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'X-Content-Type-Options': 'nosniff',
      // The body is the first response, request id included; the header matches it.
      'X-Request-Id': response.meta?.request_id ?? req.id,
      'Idempotent-Replayed': 'true',
    },
    body: JSON.stringify(done.response),
  };
}

/** The key's request (body `running`) is still being processed: 409, or 422 for another body. */
function inUse(op: AnyOperation, running: string, fingerprint: string): ProblemError {
  if (running !== fingerprint) return reused(op);
  return new ProblemError('idempotency_key_in_use', {
    detail: 'A request with this `Idempotency-Key` is still being processed.',
    headers: { 'Retry-After': '1' },
  });
}

function reused(op: AnyOperation): ProblemError {
  return new ProblemError('idempotency_key_reused', {
    detail: `This \`Idempotency-Key\` was already used for \`${op.operationId}\` with a different request body.`,
  });
}

declare module './context.js' {
  interface Services {
    idempotency?: IdempotencyGuard;
  }
}
