import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ConflictError, type ReadTx, type StoreEngine } from '../../store/engine/interface.js';
import type { SessionRecord } from '../../store/records.js';
import type { RequestInfo } from '../request.js';

export const SESSION_COOKIE = 'wcm_session';
/** A session ends after this long without a request (idle), by the store's clock. */
export const SESSION_SECONDS = 3600;
/** At most this many live sessions; starting one more ends the one idle longest. */
export const MAX_SESSIONS = 10_000;

/** A signed-in browser: who, the CSRF token its forms carry, and when it ends. */
export interface Session {
  /** The cookie's value: a random id (the store keeps its hash). */
  id: string;
  userId: string;
  /** Epoch milliseconds, by the store's clock: one idle period after the last request. */
  expiresAt: number;
  /** The mount path its cookie was set for; the session is not valid elsewhere. */
  path: string;
  /** The personal access token signed in with (off loopback): the session is limited by it and ends with it. */
  tokenId: string | null;
  /** When its cookie was last (re)set, epoch milliseconds. */
  cookieAt: number;
  /** HMAC of the id with the server's session key: bound to this session, never chosen by a client. */
  csrf: string;
  /** The cookie is due to be set again (`Sessions.renewal`). */
  renew: boolean;
}

/** 256 random bits, URL- and cookie-safe. */
export const randomToken = (): string => randomBytes(32).toString('base64url');

/** The cookies a request sent, by name (the first of a name wins, as browsers send the most specific path first). */
export function readCookies(headers: RequestInfo['headers']): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  const h = headers.cookie;
  const text = Array.isArray(h) ? h.join('; ') : (h ?? '');
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const name = part.slice(0, eq).trim();
    if (name && !Object.hasOwn(out, name)) out[name] = part.slice(eq + 1).trim();
  }
  return out;
}

/** Equal strings, compared in constant time (for secrets a visitor submits). */
export function sameSecret(a: string | undefined, b: string | undefined): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** A cookie for this origin and path: HttpOnly, SameSite=Lax, Secure when the origin is https. */
export function cookieHeader(
  name: string,
  value: string,
  path: string,
  info: Pick<RequestInfo, 'origin'>,
  maxAge: number,
): string {
  return `${name}=${value}; Path=${path}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${info.origin.startsWith('https:') ? '; Secure' : ''}`;
}

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

const KEY_SETTING = 'session_key';
const keyOf = (value: unknown): Buffer | undefined =>
  typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value) ? Buffer.from(value, 'base64url') : undefined;

/** The server key kept in the store's settings, if it has been made (at start, by `sessionKey`). */
export async function storedServerKey(tx: Pick<ReadTx, 'get'>): Promise<Buffer | undefined> {
  return keyOf((await tx.get('settings', KEY_SETTING))?.value);
}

/**
 * The key CSRF tokens are derived with: made on first start and kept in the store's settings, so
 * a restart does not change it and it never leaves the server. Of processes starting together on
 * one database, one creates it; the others read the one it kept.
 */
export async function sessionKey(db: StoreEngine): Promise<Buffer> {
  const kept = await db.read((tx) => storedServerKey(tx));
  if (kept) return kept;
  try {
    const made = randomToken();
    await db.write((tx) => tx.create('settings', { id: KEY_SETTING, value: made }));
    return Buffer.from(made, 'base64url');
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    const won = await db.read((tx) => storedServerKey(tx));
    if (!won) throw err;
    return won;
  }
}

export interface SessionsOptions {
  /** The server key of `sessionKey`; a random one when absent (tests). */
  key?: Buffer;
  /** Idle lifetime in seconds. */
  seconds?: number;
  max?: number;
}

/** A session's last use is written at most this often: a request within it of the last write writes nothing. */
export const TOUCH_MS = 60_000;
/** Expired sessions a new one removes, at most (the rest go with later sign-ins). */
const SWEEP = 100;

/** The record id of a session: a hash of its cookie, so the store never holds a cookie's value. */
const recordId = (cookie: string) => createHash('sha256').update(cookie).digest('base64url');

/**
 * Browser sessions of the server's pages, kept as `sessions` records in the store, so a session
 * started by one process is valid on every process over the same database. The cookie holds only a
 * random id, never a token; the record is keyed by the id's hash. Time is the store's
 * (`tx.now()`: the emulator's clock may be moved by tests), never Date.now().
 */
export class Sessions {
  private readonly key: Buffer;
  private readonly seconds: number;
  private readonly max: number;
  constructor(
    /** The store the sessions are kept in; the sign-in pages read users and tokens from it too. */
    readonly db: StoreEngine,
    options: SessionsOptions = {},
  ) {
    this.key = options.key ?? randomBytes(32);
    this.seconds = options.seconds ?? SESSION_SECONDS;
    this.max = options.max ?? MAX_SESSIONS;
  }

  /**
   * The live session the request's cookie names, if it was started for a path the request is
   * under. Reading it counts as use: its idle period starts again (written at most once a
   * minute), and once half the cookie's lifetime has passed the cookie is due for renewal.
   */
  async read(info: Pick<RequestInfo, 'headers' | 'path'>): Promise<Session | undefined> {
    return (await this.readWith(info, async () => undefined))?.session;
  }

  /**
   * `read`, and what `load` reads of the store for the session in the same read (its user, the
   * token it stands on).
   */
  async readWith<T>(
    info: Pick<RequestInfo, 'headers' | 'path'>,
    load: (tx: ReadTx, rec: SessionRecord) => Promise<T>,
  ): Promise<{ session: Session; loaded: T } | undefined> {
    const cookie = readCookies(info.headers)[SESSION_COOKIE];
    if (!cookie) return undefined;
    const id = recordId(cookie);
    const idle = this.seconds * 1000;
    const seen = await this.db.read(async (tx) => {
      const rec = await tx.get('sessions', id);
      if (!rec) return undefined;
      const now = await tx.now();
      const live = rec.expires_at > now && under(info.path, rec.path);
      return { rec, now, loaded: live ? await load(tx, rec) : undefined };
    });
    if (!seen) return undefined;
    const { rec, now } = seen;
    if (rec.expires_at <= now) {
      await this.db.write(async (tx) => {
        const r = await tx.get('sessions', id);
        if (r && r.expires_at <= (await tx.now())) await tx.delete('sessions', id);
      });
      return undefined;
    }
    if (!under(info.path, rec.path)) return undefined;
    const loaded = seen.loaded as T;
    if (now - rec.cookie_at < idle / 2 && now + idle - rec.expires_at < TOUCH_MS)
      return { session: this.session(cookie, rec, false), loaded };
    const touched = await this.db.write(async (tx) => {
      const r = await tx.get('sessions', id);
      if (!r) return undefined;
      const at = await tx.now();
      if (r.expires_at <= at) return undefined;
      const cookieAt = at - r.cookie_at >= idle / 2 ? at : r.cookie_at;
      return tx.put('sessions', { ...r, expires_at: Math.max(r.expires_at, at + idle), cookie_at: cookieAt });
    });
    if (!touched) return undefined;
    return { session: this.session(cookie, touched, touched.cookie_at !== rec.cookie_at), loaded };
  }

  /** A new session for `userId`, valid under `path` (limited by `tokenId` when given), and the Set-Cookie header that carries it. */
  async start(
    userId: string,
    path: string,
    info: Pick<RequestInfo, 'origin'>,
    tokenId: string | null = null,
  ): Promise<{ cookie: string; session: Session }> {
    const cookie = randomToken();
    const rec = await this.db.write(async (tx) => {
      const now = await tx.now();
      // Expired sessions go first; then, while `max` are kept, the ones idle longest.
      const expired = await tx.page('sessions', 'sessionsByExpiry', { partition: '*', limit: SWEEP, to: [now + 1] });
      for (const r of expired.items) await tx.delete('sessions', r.id);
      const over = (await tx.count('sessions')) - this.max + 1;
      if (over > 0) {
        const oldest = await tx.page('sessions', 'sessionsByExpiry', { partition: '*', limit: over });
        for (const r of oldest.items) await tx.delete('sessions', r.id);
      }
      return tx.create('sessions', {
        id: recordId(cookie),
        user_id: userId,
        expires_at: now + this.seconds * 1000,
        path,
        token_id: tokenId,
        cookie_at: now,
      });
    });
    const session = this.session(cookie, rec, false);
    return { cookie: cookieHeader(SESSION_COOKIE, cookie, path, info, this.seconds), session };
  }

  /**
   * A Set-Cookie header renewing the session's cookie when `read` found it due (half its lifetime
   * passed while in use, so a session in use is not dropped by the browser an hour after sign-in);
   * undefined otherwise.
   */
  async renewal(session: Session, info: Pick<RequestInfo, 'origin'>): Promise<string | undefined> {
    if (!session.renew) return undefined;
    session.renew = false;
    return cookieHeader(SESSION_COOKIE, session.id, session.path, info, this.seconds);
  }

  /** Ends the session; the returned Set-Cookie header clears its cookie. */
  async end(session: Session | undefined, path: string, info: Pick<RequestInfo, 'origin'>): Promise<string> {
    if (session) await this.db.write((tx) => tx.delete('sessions', recordId(session.id)));
    return cookieHeader(SESSION_COOKIE, '', path, info, 0);
  }

  /**
   * The hidden field a sign-in form carries for the pre-sign-in cookie's `nonce`: only this server
   * can make it, so a value a client chose (a cookie planted by a sibling site) is refused.
   */
  signInCsrf(nonce: string): string {
    return this.derive('sign-in', nonce);
  }

  /** How many sessions are kept, expired ones not yet removed included (for tests and notes). */
  count(): Promise<number> {
    return this.db.read((tx) => tx.count('sessions'));
  }

  private session(cookie: string, rec: SessionRecord, renew: boolean): Session {
    return {
      id: cookie,
      userId: rec.user_id,
      expiresAt: rec.expires_at,
      path: rec.path,
      tokenId: rec.token_id,
      cookieAt: rec.cookie_at,
      csrf: this.derive('session', cookie),
      renew,
    };
  }

  private derive(purpose: string, value: string): string {
    return createHmac('sha256', this.key).update(`${purpose}\0${value}`).digest('base64url');
  }
}

/** Whether a form's `csrf` field matches the session's token (constant time). */
export function checkCsrf(session: Session, submitted: string | undefined): boolean {
  return sameSecret(session.csrf, submitted);
}

declare module '../context.js' {
  interface Services {
    sessions?: Sessions;
  }
}
