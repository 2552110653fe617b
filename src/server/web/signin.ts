import { timingSafeEqual } from 'node:crypto';
import { ABILITIES, type Ability } from '../../contract/enums.js';
import { hashToken, tokenId } from '../../store/fixtures/import.js';
import { isGrantToken, type StoredToken } from '../../store/oauth-tokens.js';
import type { SessionRecord, TokenRecord, UserRecord } from '../../store/records.js';
import type { ReadTx, StoreEngine } from '../../store/engine/interface.js';
import type { AppRequest, AppResponse, AppRouter } from '../app.js';
import { ANY } from '../router.js';
import type { RequestInfo } from '../context.js';
import { FormError, Html, html, messagePage, parseForm, redirect } from './html.js';
import { formExpired, notAllowed, signInPage } from './signin-page.js';
import {
  checkCsrf,
  cookieHeader,
  randomToken,
  readCookies,
  sameSecret,
  SESSION_SECONDS,
  type Session,
  type Sessions,
} from './session.js';

/** The pre-sign-in CSRF cookie: a random nonce; the form's hidden field is the server's HMAC of it. */
export const SIGNIN_CSRF_COOKIE = 'wcm_csrf';
const CSRF_VALUE = /^[A-Za-z0-9_-]{43}$/;

export interface SignInOptions {
  /** The mount the sign-in belongs to (`/dashboard`, `/oauth`): its pages, cookie path and return_to range. */
  prefix: string;
  /** The server listens on a loopback address: offer an account chooser instead of asking for a token. */
  loopback: boolean;
  /** The server's sessions; users and tokens are read from the store they are kept in. */
  sessions: Sessions;
  /** What signing in leads to, shown under the heading ("to open the dashboard"). */
  purpose?: string;
}

/** A request from a signed-in browser. */
export interface SignedIn {
  session: Session;
  user: UserRecord;
  /** For `layout({ user })`: the sign-out form's target and CSRF token. */
  signOut: { action: string; csrf: string };
  /** What the session may read and grant: every ability on loopback, else the sign-in token's. */
  abilities: readonly Ability[];
  /** The workspaces it may reach among the user's: null for all of them (the token names none). */
  workspaceIds: readonly string[] | null;
  /** A Set-Cookie header renewing the session cookie, for the page to send when present. */
  renewal?: string;
}

/** Whether a signed-in session may reach the workspace (the user's membership is checked apart). */
export const reaches = (signed: Pick<SignedIn, 'workspaceIds'>, workspaceId: string): boolean =>
  !signed.workspaceIds || signed.workspaceIds.includes(workspaceId);

/** A personal token's record; an OAuth token's (bound to an audience or a grant) is never a way to sign in to the pages. */
const isPersonal = (rec: StoredToken): rec is TokenRecord =>
  !isGrantToken(rec) && !(rec.audience || rec.grant_id || rec.client_id);

/** Whether the personal token a session stands on is still this user's, unrevoked and unexpired. */
function tokenLive(rec: StoredToken | undefined, userId: string, now: number): rec is TokenRecord {
  if (!rec || !isPersonal(rec) || rec.user_id !== userId || rec.revoked_at) return false;
  return !rec.expires_at || new Date(rec.expires_at).getTime() > now;
}

export interface SignIn {
  readonly prefix: string;
  /** Adds `{prefix}/sign-in` and `{prefix}/sign-out` to the router: the pages that need no session. */
  routes(router: AppRouter): void;
  /** The signed-in user, or the redirect to sign-in that comes back to this page afterwards. */
  requireSession(req: AppRequest, info: RequestInfo): Promise<SignedIn | AppResponse>;
}

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/**
 * Where to go after signing in: a same-origin path under `prefix` (with its query), else `prefix`.
 * Absolute URLs, `//host`, backslashes, control characters and dot segments (plain or
 * percent-encoded, which would resolve outside the prefix) all fall back to `prefix`.
 */
export function safeReturnTo(value: string | undefined, prefix: string): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || /[\\\x00-\x1f\x7f]/.test(value)) return prefix;
  const path = value.split(/[?#]/, 1)[0];
  if (/(^|\/)(\.|%2e){1,2}(\/|$)/i.test(path)) return prefix;
  let url: URL;
  try {
    url = new URL(value, 'http://wcm.invalid');
  } catch {
    return prefix;
  }
  if (url.origin !== 'http://wcm.invalid' || !under(url.pathname, prefix)) return prefix;
  return url.pathname + url.search;
}

/** The request target as a URL (absolute-form targets included); null if it cannot parse. */
export function targetUrl(req: Pick<AppRequest, 'url'>): URL | null {
  try {
    return new URL(req.url, 'http://wcm.invalid');
  } catch {
    return null;
  }
}

const LOOPBACK_NAMES = new Set(['localhost', '::1', '[::1]', '0:0:0:0:0:0:0:1']);
/** Whether `wcm serve --host` is a loopback address (127.0.0.0/8, ::1, localhost): only this machine can connect. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase();
  return LOOPBACK_NAMES.has(h) || /^127(\.\d{1,3}){3}$/.test(h) || /^::ffff:127(\.\d{1,3}){3}$/.test(h);
}

const oauthRefused = html`OAuth tokens cannot be used to sign in here; use one of your personal access tokens (<code>wcm_pat_&hellip;</code>).`;
/** The user a personal access token belongs to and its record, or why it is refused (checked as the API checks it). */
async function userOfToken(db: StoreEngine, token: string): Promise<{ user: UserRecord; rec: TokenRecord } | Html> {
  if (!token) return html`Enter a personal access token.`;
  if (!token.startsWith('wcm_pat_')) {
    return token.startsWith('wcm_oat_') || token.startsWith('wcm_ort_')
      ? oauthRefused
      : html`That is not a personal access token: they start with <code>wcm_pat_</code>.`;
  }
  const sha = hashToken(token);
  return db.read(async (tx) => {
    const rec = await tx.get('tokens', tokenId(sha));
    if (!rec || !timingSafeEqual(Buffer.from(rec.token_sha256, 'hex'), Buffer.from(sha, 'hex')))
      return html`That token is not recognised.`;
    if (!isPersonal(rec)) return oauthRefused;
    if (rec.revoked_at) return html`That token has been revoked.`;
    if (rec.expires_at && new Date(rec.expires_at).getTime() <= (await tx.now()))
      return html`That token expired at ${rec.expires_at}.`;
    const user = await tx.get('users', rec.user_id);
    return user ? { user, rec } : html`That token is not recognised.`;
  });
}

/** The hidden field for the visitor's pre-sign-in nonce cookie, or a new nonce with the cookie that sets it. */
function preSignInCsrf(
  sessions: Sessions,
  prefix: string,
  info: RequestInfo,
): { value: string; headers: Record<string, string> } {
  const have = readCookies(info.headers)[SIGNIN_CSRF_COOKIE];
  if (have && CSRF_VALUE.test(have)) return { value: sessions.signInCsrf(have), headers: {} };
  const nonce = randomToken();
  return {
    value: sessions.signInCsrf(nonce),
    headers: { 'Set-Cookie': cookieHeader(SIGNIN_CSRF_COOKIE, nonce, prefix, info, SESSION_SECONDS) },
  };
}

/** The session's limits, or null once the token it stands on is revoked, expired or gone. */
async function limits(
  tx: ReadTx,
  session: SessionRecord,
): Promise<Pick<SignedIn, 'abilities' | 'workspaceIds'> | null> {
  if (!session.token_id) return { abilities: ABILITIES, workspaceIds: null };
  const rec = await tx.get('tokens', session.token_id);
  if (!tokenLive(rec, session.user_id, await tx.now())) return null;
  return { abilities: rec.abilities, workspaceIds: rec.workspace_ids ?? null };
}

/** The signed-in user of a page under `o.prefix`, or the redirect to sign-in that comes back to it afterwards. */
async function signedIn(o: SignInOptions, req: AppRequest, info: RequestInfo): Promise<SignedIn | AppResponse> {
  const { prefix, sessions } = o;
  const signInPath = `${prefix}/sign-in`;
  // The session, its user and the token it stands on, in one read.
  const read = await sessions.readWith(info, async (tx, rec) => {
    const user = await tx.get('users', rec.user_id);
    return user && { user, limit: await limits(tx, rec) };
  });
  const session = read?.session;
  const found = read?.loaded;
  // Where sign-in comes back to: only a redirect needs it (a page signed in does not parse its URL).
  const back = () => {
    const url = info.method === 'GET' ? targetUrl(req) : null;
    return url ? safeReturnTo(url.pathname + url.search, prefix) : prefix;
  };
  if (session && found) {
    const { user, limit } = found;
    if (limit) {
      return {
        session,
        user,
        signOut: { action: `${prefix}/sign-out`, csrf: session.csrf },
        ...limit,
        renewal: await sessions.renewal(session, info),
      };
    }
    // The token it stands on was revoked or expired: the session ends with it.
    const cleared = await sessions.end(session, prefix, info);
    return redirect(`${signInPath}?return_to=${encodeURIComponent(back())}&ended=token`, { 'Set-Cookie': cleared });
  }
  return redirect(`${signInPath}?return_to=${encodeURIComponent(back())}`);
}

/** Sign-in and sign-out pages for one mount, and the session check its other pages call first. */
export function signIn(options: SignInOptions): SignIn {
  const { prefix, loopback, sessions } = options;
  const { db } = sessions;
  const signInPath = `${prefix}/sign-in`;
  const signOutPath = `${prefix}/sign-out`;

  const page = (
    status: number,
    returnTo: string,
    csrf: string,
    alert?: Html | string,
    headers: Record<string, string> = {},
  ): Promise<AppResponse> => {
    const action = `${signInPath}?return_to=${encodeURIComponent(returnTo)}`;
    return signInPage({ ...options, db }, { status, action, csrf, alert, headers });
  };

  const refused = () => formExpired(prefix);

  const postSignIn = async (info: RequestInfo, returnTo: string): Promise<AppResponse> => {
    const cookie = readCookies(info.headers)[SIGNIN_CSRF_COOKIE];
    let form: Record<string, string>;
    try {
      form = parseForm(info.rawBody);
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      return messagePage(400, 'The form could not be read', err.message, { home: prefix });
    }
    if (!cookie || !CSRF_VALUE.test(cookie) || !sameSecret(sessions.signInCsrf(cookie), form.csrf)) return refused();
    let who: { user: UserRecord; rec?: TokenRecord } | Html;
    if (loopback) {
      const id = form.user;
      const user = id ? await db.read((tx) => tx.get('users', id)) : undefined;
      who = user ? { user } : html`Choose one of the accounts listed.`;
    } else {
      who = await userOfToken(db, form.token ?? '');
    }
    if (who instanceof Html) return page(loopback ? 400 : 403, returnTo, form.csrf, who);
    const { cookie: set } = await sessions.start(who.user.id, prefix, info, who.rec?.id ?? null);
    return redirect(returnTo, { 'Set-Cookie': set });
  };

  const signOut = async (info: RequestInfo): Promise<AppResponse> => {
    const session = await sessions.read(info);
    if (!session) return redirect(signInPath);
    let form: Record<string, string>;
    try {
      form = parseForm(info.rawBody);
    } catch {
      return refused();
    }
    if (!checkCsrf(session, form.csrf)) return refused();
    return redirect(signInPath, { 'Set-Cookie': await sessions.end(session, prefix, info) });
  };

  return {
    prefix,
    routes(router) {
      const returnTo = (req: AppRequest) =>
        safeReturnTo(targetUrl(req)?.searchParams.get('return_to') ?? undefined, prefix);
      router
        .on(['GET', 'HEAD'], signInPath, ({ req, info }) => {
          const csrf = preSignInCsrf(sessions, prefix, info);
          const ended = targetUrl(req)?.searchParams.get('ended');
          const alert =
            ended === 'token'
              ? 'Your session ended: the personal access token you signed in with was revoked or expired. Sign in with a current one.'
              : undefined;
          return page(200, returnTo(req), csrf.value, alert, csrf.headers);
        })
        .on('POST', signInPath, ({ req, info }) => postSignIn(info, returnTo(req)))
        .on(ANY, signInPath, () => notAllowed(prefix, 'in'))
        .on('POST', signOutPath, ({ info }) => signOut(info))
        .on(ANY, signOutPath, () => notAllowed(prefix, 'out'));
    },
    requireSession: (req, info) => signedIn(options, req, info),
  };
}
