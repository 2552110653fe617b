import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { RequestInfo } from '../request.js';

export const SESSION_COOKIE = 'wcm_session';
export const SESSION_SECONDS = 3600;

/** A signed-in browser: who, the CSRF token its forms carry, and when it ends. */
export interface Session {
  id: string;
  userId: string;
  csrf: string;
  /** Epoch milliseconds, by the server's clock. */
  expiresAt: number;
  /** The mount path its cookie was set for; the session is not valid elsewhere. */
  path: string;
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
export function cookieHeader(name: string, value: string, path: string, info: Pick<RequestInfo, 'origin'>, maxAge: number): string {
  return `${name}=${value}; Path=${path}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${info.origin.startsWith('https:') ? '; Secure' : ''}`;
}

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/**
 * Browser sessions of the server's pages, in memory (a restart signs everyone out). The cookie
 * holds only a random id, never a token. Time comes from the given clock (the emulator's clock
 * may be moved by tests), never from Date.now().
 */
export class Sessions {
  private readonly byId = new Map<string, Session>();
  constructor(
    private readonly clock: Clock,
    private readonly seconds = SESSION_SECONDS,
  ) {}

  /** The live session the request's cookie names, if it was started for a path the request is under. */
  read(info: Pick<RequestInfo, 'headers' | 'path'>): Session | undefined {
    const id = readCookies(info.headers)[SESSION_COOKIE];
    if (!id) return undefined;
    const s = this.byId.get(id);
    if (!s) return undefined;
    if (s.expiresAt <= this.clock.now().getTime()) {
      this.byId.delete(id);
      return undefined;
    }
    return under(info.path, s.path) ? s : undefined;
  }

  /** A new session for `userId`, valid under `path`, and the Set-Cookie header that carries it. */
  start(userId: string, path: string, info: Pick<RequestInfo, 'origin'>): { cookie: string; session: Session } {
    this.prune();
    const session: Session = { id: randomToken(), userId, csrf: randomToken(), expiresAt: this.clock.now().getTime() + this.seconds * 1000, path };
    this.byId.set(session.id, session);
    return { cookie: cookieHeader(SESSION_COOKIE, session.id, path, info, this.seconds), session };
  }

  /** Ends the session; the returned Set-Cookie header clears its cookie. */
  end(session: Session | undefined, path: string, info: Pick<RequestInfo, 'origin'>): string {
    if (session) this.byId.delete(session.id);
    return cookieHeader(SESSION_COOKIE, '', path, info, 0);
  }

  /** How many sessions are live (for tests and notes). */
  get size(): number {
    return this.byId.size;
  }

  private prune(): void {
    const now = this.clock.now().getTime();
    for (const [id, s] of this.byId) if (s.expiresAt <= now) this.byId.delete(id);
  }
}

/** Whether a form's `csrf` field matches the session's token (constant time). */
export function checkCsrf(session: Session, submitted: string | undefined): boolean {
  return sameSecret(session.csrf, submitted);
}
