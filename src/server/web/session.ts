import { keepSetting } from '../../store/settings.js';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { RequestInfo } from '../request.js';
import type { SessionBackend, StoredSession } from '../../store/shared-state.js';

export type { SessionBackend, StoredSession };

export const SESSION_COOKIE = 'wcm_session';
/** A session ends after this long without a request (idle), by the server's clock. */
export const SESSION_SECONDS = 3600;
/** At most this many live sessions; starting one more ends the one idle longest. */
export const MAX_SESSIONS = 10_000;

/** A signed-in browser: who, the CSRF token its forms carry, and when it ends. */
export interface Session extends StoredSession {
  /** HMAC of the id with the server's session key: bound to this session, never chosen by a client. */
  csrf: string;
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

/** The server key kept in the store, if it has been made (at start, by `sessionKey`). */
export function storedServerKey(store: Pick<Store, 'get'>): Buffer | undefined {
  const kept = store.get('settings', KEY_SETTING)?.value;
  return typeof kept === 'string' && /^[A-Za-z0-9_-]{43}$/.test(kept) ? Buffer.from(kept, 'base64url') : undefined;
}

/**
 * The key CSRF tokens are derived with: made on first start and kept in the store's settings, so
 * a restart (which signs everyone out anyway) does not change it and it never leaves the server.
 */
export async function sessionKey(store: Store): Promise<Buffer> {
  const kept = storedServerKey(store);
  if (kept) return kept;
  const { value } = await keepSetting(store, KEY_SETTING, randomToken);
  return Buffer.from(value, 'base64url');
}

export interface SessionsOptions {
  /** The server key of `sessionKey`; a random one when absent (tests). */
  key?: Buffer;
  /** Idle lifetime in seconds. */
  seconds?: number;
  max?: number;
  backend?: SessionBackend;
}

/**
 * Browser sessions of the server's pages, kept by the backend. The cookie holds only a random
 * id, never a token. Time comes from the given clock (the emulator's clock may be moved by
 * tests), never from Date.now().
 */
export class Sessions {
  private readonly key: Buffer;
  private readonly seconds: number;
  private readonly max: number;
  readonly backend: SessionBackend;
  constructor(
    private readonly clock: Clock,
    options: SessionsOptions = {},
  ) {
    this.key = options.key ?? randomBytes(32);
    this.seconds = options.seconds ?? SESSION_SECONDS;
    this.max = options.max ?? MAX_SESSIONS;
    this.backend = options.backend ?? new MemorySessions();
  }

  /**
   * The live session the request's cookie names, if it was started for a path the request is
   * under. Reading it counts as use: its idle period starts again.
   */
  async read(info: Pick<RequestInfo, 'headers' | 'path'>): Promise<Session | undefined> {
    const id = readCookies(info.headers)[SESSION_COOKIE];
    if (!id) return undefined;
    const now = this.clock.now().getTime();
    const s = await this.backend.touch(id, info.path, now, now + this.seconds * 1000);
    return s && { ...s, csrf: this.derive('session', s.id) };
  }

  /** A new session for `userId`, valid under `path` (limited by `tokenId` when given), and the Set-Cookie header that carries it. */
  async start(
    userId: string,
    path: string,
    info: Pick<RequestInfo, 'origin'>,
    tokenId: string | null = null,
  ): Promise<{ cookie: string; session: Session }> {
    const now = this.clock.now().getTime();
    const id = randomToken();
    const stored: StoredSession = { id, userId, expiresAt: now + this.seconds * 1000, path, tokenId, cookieAt: now };
    await this.backend.add(stored, now, this.max);
    const session = { ...stored, csrf: this.derive('session', id) };
    return { cookie: cookieHeader(SESSION_COOKIE, id, path, info, this.seconds), session };
  }

  /**
   * A Set-Cookie header renewing the session's cookie once half its lifetime has passed (so a
   * session in use is not dropped by the browser an hour after sign-in); undefined otherwise.
   */
  async renewal(session: Session, info: Pick<RequestInfo, 'origin'>): Promise<string | undefined> {
    const now = this.clock.now().getTime();
    if (now - session.cookieAt < (this.seconds * 1000) / 2) return undefined;
    session.cookieAt = now;
    await this.backend.renewed(session.id, now);
    return cookieHeader(SESSION_COOKIE, session.id, session.path, info, this.seconds);
  }

  /** Ends the session; the returned Set-Cookie header clears its cookie. */
  async end(session: Session | undefined, path: string, info: Pick<RequestInfo, 'origin'>): Promise<string> {
    if (session) await this.backend.remove(session.id);
    return cookieHeader(SESSION_COOKIE, '', path, info, 0);
  }

  /**
   * The hidden field a sign-in form carries for the pre-sign-in cookie's `nonce`: only this server
   * can make it, so a value a client chose (a cookie planted by a sibling site) is refused.
   */
  signInCsrf(nonce: string): string {
    return this.derive('sign-in', nonce);
  }

  /** How many sessions are kept (for tests and notes). */
  count(): Promise<number> {
    return this.backend.count();
  }

  private derive(purpose: string, value: string): string {
    return createHmac('sha256', this.key).update(`${purpose}\0${value}`).digest('base64url');
  }
}

/**
 * Sessions in this process's memory. The map is kept in order of last use, so the sessions idle
 * longest (expired, or next to go at the cap) are always at its front.
 */
export class MemorySessions implements SessionBackend {
  private readonly byId = new Map<string, StoredSession>();

  async touch(id: string, path: string, now: number, expiresAt: number): Promise<StoredSession | undefined> {
    const s = this.byId.get(id);
    if (!s) return undefined;
    if (s.expiresAt <= now) {
      this.byId.delete(id);
      return undefined;
    }
    if (!under(path, s.path)) return undefined;
    s.expiresAt = expiresAt;
    this.byId.delete(id);
    this.byId.set(id, s);
    return { ...s };
  }

  async add(session: StoredSession, now: number, max: number): Promise<void> {
    for (const [id, s] of this.byId) {
      if (s.expiresAt > now && this.byId.size < max) break;
      this.byId.delete(id);
    }
    this.byId.set(session.id, { ...session });
  }

  async renewed(id: string, at: number): Promise<void> {
    const s = this.byId.get(id);
    if (s) s.cookieAt = at;
  }

  async remove(id: string): Promise<void> {
    this.byId.delete(id);
  }

  async count(): Promise<number> {
    return this.byId.size;
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
