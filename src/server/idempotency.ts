import { clientKey } from './client-address.js';
import { createHash } from 'node:crypto';
import type { AnyOperation } from '../contract/operations.js';
import type { IdempotencyRecord } from '../store/records.js';
import { ConflictError, type StoreEngine, type WriteTx } from '../store/engine/interface.js';
import type { Middleware, OperationCall } from './chain.js';
import type { AppResponse } from './response.js';
import { BASE_PATHS, header } from './request.js';
import { isoTime } from './clock.js';
import type { RequestInfo } from './request.js';
import { ProblemError } from './problems.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** 8–120 visible ASCII characters (no spaces, no control characters). */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{8,120}$/;
const PRUNE_EVERY_MS = 60_000;
/** The most records one pruning deletes (the rest wait for the next minute). */
const PRUNE_BATCH = 1000;

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
 * another caller's answer. Only responses that created something (2xx) are recorded: a request
 * refused before or by the handler creates nothing, so a corrected retry with the same key runs
 * for real. Records persist in the store for 24 h and are replayed byte for byte; the raw key is
 * never stored, only its hash.
 *
 * A handler that creates something records the key in the same write (`x.idempotency.record`),
 * with a create: of two requests with one key arriving together (on one process or several),
 * exactly one create succeeds; the other's write ends with nothing of it kept, and it answers
 * with the winner's record, as a later retry would.
 */
export class IdempotencyGuard {
  /** When the last pruning started, by the store's clock (epoch ms). */
  private lastPrune = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: StoreEngine,
    private readonly ttlMs = IDEMPOTENCY_TTL_MS,
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
    // The caller is part of the hashed id only: the stored scope names no address or token, so the
    // store keeps nothing that identifies a public visitor (the id hashes in the raw key, never stored).
    const scope = `${op.operationId} ${canonicalTarget(req.path)}`;
    const id = sha256(`${scope}\n${caller(req)}\n${key}`);
    const fingerprint = bodyFingerprint(req.rawBody);

    const seen = await this.db.read(async (tx) => ({ rec: await tx.get('idempotency_keys', id), now: await tx.now() }));
    if (seen.now - this.lastPrune >= PRUNE_EVERY_MS || seen.now < this.lastPrune) {
      this.lastPrune = seen.now;
      // Not awaited: pruning need not delay this request.
      void this.pruneExpired().catch(() => undefined);
    }
    const stale = seen.rec !== undefined && this.expired(seen.rec, seen.now);
    if (seen.rec && !stale) return replay(op, seen.rec, fingerprint, req);

    const ttlMs = this.ttlMs;
    const write = async (tx: WriteTx, status: number, response: unknown): Promise<void> => {
      const now = await tx.now();
      if (stale) {
        // A record past its 24 h that pruning has not reached yet: this request replaces it.
        const old = await tx.get('idempotency_keys', id);
        if (old && Date.parse(old.created_at) + ttlMs <= now) await tx.delete('idempotency_keys', id);
      }
      await tx.create('idempotency_keys', {
        id,
        operation_id: op.operationId,
        scope,
        key: `sha256:${sha256(key)}`,
        body_sha256: fingerprint,
        status,
        response,
        created_at: isoTime(new Date(now)),
      });
    };
    // Handlers that create something record the key in their own write (atomic with it). Set
    // again by a write that runs again, and the handler fails when its write fails: so `recorded`
    // says whether the record was written with the handler's work.
    let recorded = false;
    x.idempotency = {
      async record(tx, status, data) {
        recorded = true;
        await write(tx, status, { data, meta: { request_id: req.id } });
      },
    };
    try {
      const res = await next(x);
      if (res.status >= 200 && res.status < 300 && !recorded) {
        const response: unknown = JSON.parse(res.body);
        await this.db.write((tx) => write(tx, res.status, response));
      }
      return res;
    } catch (err) {
      if (!(err instanceof ConflictError && err.collection === 'idempotency_keys' && err.id === id)) throw err;
      // Another request with this key created its record first: nothing of this one was kept,
      // and it answers as a retry would.
      const winner = await this.db.read((tx) => tx.get('idempotency_keys', id));
      if (!winner) throw inUse(op);
      return replay(op, winner, fingerprint, req);
    }
  }

  private expired(rec: IdempotencyRecord, now: number): boolean {
    return Date.parse(rec.created_at) + this.ttlMs <= now;
  }

  /**
   * Drops records past their 24 h, oldest first, at most PRUNE_BATCH at a time, by the store's
   * clock. Runs at start-up; requests start it at most once a minute.
   */
  async pruneExpired(): Promise<number> {
    return this.db.write(async (tx) => {
      const now = await tx.now();
      // Expired: created at or before now - ttl, so every key before the next millisecond.
      const stale = await tx.page('idempotency_keys', 'idempotencyByCreated', {
        partition: '*',
        limit: PRUNE_BATCH,
        to: [isoTime(new Date(now - this.ttlMs + 1))],
      });
      for (const r of stale.items) await tx.delete('idempotency_keys', r.id);
      return stale.items.length;
    });
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

/** The key's record could not be read after another request's create won: try again shortly. */
function inUse(_op: AnyOperation): ProblemError {
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
