import type { Store } from '../../store/store.js';
import type { AppRequest, AppResponse, Mount } from '../app.js';
import type { Clock, RequestInfo } from '../context.js';
import { ProblemError } from '../problems.js';
import { html, htmlResponse, redirect } from '../web/html.js';
import type { Sessions } from '../web/session.js';
import { signIn, targetUrl, type SignedIn } from '../web/signin.js';
import { canRead, missingAbilityView } from './access.js';
import { DASHBOARD, page, ROWS_MARKER, wsHref, type NavEntry, type Section, type View } from './chrome.js';
import { eventsView, ordersView } from './pages/commerce.js';
import {
  articlesView,
  articleView,
  formsView,
  formView,
  knowledgeListsView,
  listingsView,
  listingView,
  pagesView,
  pageView,
} from './pages/content.js';
import { oauthView } from './pages/oauth.js';
import { requestFilter, requestsView, requestView, REQUESTS_PATH, REQUESTS_STREAM } from './pages/requests.js';
import { streamsBusy, type LogScope, type RequestLog } from '../emulator/log.js';
import { recordPage } from './pages/open.js';
import { bookingsView, threadsView, threadView, voiceView } from './pages/engagement.js';
import { memberships, overviewView, workspaceNav, workspacesNav, workspacesView } from './pages/workspaces.js';
import type { WorkspaceRequest } from './request.js';

export interface DashboardOptions {
  store: Store;
  clock: Clock;
  /** The server's one session store, shared with the OAuth pages. */
  sessions: Sessions;
  /** `wcm serve --host` is a loopback address: sign-in offers the account chooser. */
  loopback: boolean;
  /**
   * The request log, shown at /dashboard/requests on a loopback server only: it spans every
   * workspace, and on loopback anyone signed in can read the data file anyway.
   */
  requestLog?: RequestLog;
}

type WorkspacePage = (r: WorkspaceRequest, ...ids: string[]) => View | Promise<View>;

/** A workspace's pages, by the path after `/dashboard/workspaces/{w}`, and the section each belongs to. Ids are single path segments. */
const WORKSPACE_PAGES: Array<[RegExp, Section, WorkspacePage]> = [
  [/^$/, 'overview', overviewView],
  [/^\/lists$/, 'lists', listingsView],
  [/^\/lists\/([^/]+)$/, 'lists', listingView],
  [/^\/forms$/, 'forms', formsView],
  [/^\/forms\/([^/]+)$/, 'forms', formView],
  [/^\/pages$/, 'pages', pagesView],
  [/^\/pages\/([^/]+)$/, 'pages', pageView],
  [/^\/knowledge$/, 'knowledge', knowledgeListsView],
  [/^\/knowledge\/([^/]+)$/, 'knowledge', articlesView],
  [/^\/knowledge\/([^/]+)\/articles\/([^/]+)$/, 'knowledge', articleView],
  [/^\/threads$/, 'threads', threadsView],
  [/^\/threads\/([^/]+)$/, 'threads', threadView],
  [/^\/bookings$/, 'bookings', bookingsView],
  [/^\/voice$/, 'voice', voiceView],
  [/^\/orders$/, 'orders', ordersView],
  [/^\/events$/, 'events', eventsView],
  [/^\/oauth$/, 'oauth', oauthView],
];

/** The section of a workspace page, by the path after `/dashboard/workspaces/{w}`. */
const sectionOf = (rest: string): Section | undefined => WORKSPACE_PAGES.find(([pattern]) => pattern.test(rest))?.[1];

const WORKSPACE_PATH = /^\/dashboard\/workspaces\/([^/]+)((?:\/[^/]+)*)$/;

const ROWS_MARKER_BYTES = Buffer.from(ROWS_MARKER);
/** Every page loads the dashboard's script from /assets (no inline script even so). */
const CSP = { 'script-src': "'self'" };
const disagree = (view: View) => new Error(`The view "${view.title}" and its table disagree about spliced rows.`);

/** Bytes of the slab page text is encoded into (see pageBytes). */
const SLAB_BYTES = 256 * 1024;
let slab = Buffer.alloc(0);
let slabAt = 0;

/**
 * A page's own text (its chrome around the cached rows) as UTF-8, carved from a shared slab: a
 * fresh 4 KB buffer per page was an allocation outside Buffer's small pool, and its external
 * memory made the garbage collector run every few requests (a fifth of the inbox page's time). A
 * slab is never rewound: a new one starts when it is full, and the old one goes once no response
 * holds a piece of it.
 */
function pageBytes(text: string): Buffer {
  const most = text.length * 3;
  if (most > SLAB_BYTES / 8) return Buffer.from(text);
  if (slabAt + most > slab.length) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabAt = 0;
  }
  const n = slab.write(text, slabAt);
  const piece = slab.subarray(slabAt, slabAt + n);
  slabAt += n;
  return piece;
}

/** A problem the pages raise (a record of another workspace, a bad cursor) as its status and words. */
function problemStatus(p: ProblemError): number {
  return p.status === 422 ? 400 : p.status;
}

/** What of the request log a signed-in user sees: requests to the workspaces the session reaches (TRUST §5). */
const logScope = (store: Store, signed: SignedIn): LogScope => ({
  workspaces: new Set(memberships(store, signed).map((m) => m.record.id.toLowerCase())),
});

/**
 * The read-only dashboard (docs/dashboard.md) under `/dashboard`: server-rendered pages over the
 * same store, handlers and indexes as the API. Only signed-in users, and only for workspaces they
 * are a member of: anything else is the same 404 as a record that does not exist.
 */
export function dashboardMount(options: DashboardOptions): Mount {
  const { store, clock, sessions, loopback } = options;
  const auth = signIn({
    prefix: DASHBOARD,
    loopback,
    store,
    sessions,
    clock,
    purpose: 'to open the wcm dashboard (read-only).',
  });

  const log = options.loopback ? options.requestLog : undefined;
  const respond = (
    status: number,
    view: View,
    signed: SignedIn,
    info: RequestInfo,
    nav: NavEntry[],
    workspace?: WorkspaceRequest,
  ): AppResponse => {
    const doc = page(view, {
      signed,
      nav,
      workspace: workspace && { record: workspace.workspace, role: workspace.role },
    }).text;
    const headers: Record<string, string> = signed.renewal
      ? { 'X-Request-Id': info.id, 'Set-Cookie': signed.renewal }
      : { 'X-Request-Id': info.id };
    if (!view.rows?.count) {
      if (doc.includes(ROWS_MARKER)) throw disagree(view);
      return htmlResponse(status, doc, { headers, csp: CSP });
    }
    // Encoded once, then cut around the marker (its bytes are ASCII, found in the bytes as in the text).
    const bytes = pageBytes(doc);
    const at = bytes.indexOf(ROWS_MARKER_BYTES);
    if (at === -1) throw disagree(view);
    const body = [bytes.subarray(0, at), ...view.rows.bytes, bytes.subarray(at + ROWS_MARKER_BYTES.length)];
    return htmlResponse(status, body, { headers, csp: CSP });
  };

  const notFoundView = (what: string): View => ({
    title: 'Not found',
    section: 'workspaces',
    body: html`<section class="panel"><p>${what}</p><p><a href="${DASHBOARD}">Back to your workspaces</a></p></section>`,
  });

  return {
    prefix: DASHBOARD,
    async handle(req: AppRequest, info: RequestInfo, app) {
      const own = await auth.handle(req, info);
      if (own) return own;
      const signed = await auth.requireSession(req, info);
      if (!('user' in signed)) return signed;
      if (info.method !== 'GET' && info.method !== 'HEAD') {
        const res = respond(
          405,
          {
            title: 'Read-only',
            section: 'workspaces',
            body: html`<p>The dashboard only shows data; change it with the API or <code>wcm</code>.</p>`,
          },
          signed,
          info,
          [],
        );
        res.headers.Allow = 'GET, HEAD';
        return res;
      }
      const path = info.path;
      // One address per page: relative links (the inbox's rows) resolve against it.
      if (path.length > DASHBOARD.length + 1 && path.endsWith('/')) {
        const url = targetUrl(req);
        return redirect(path.replace(/\/+$/, '') + (url?.search ?? ''));
      }
      // The side bar outside a workspace: made only for the pages that show it.
      const homeNav = () => workspacesNav(store, signed, { requestLog: !!log });
      if (log && path === REQUESTS_PATH) {
        return respond(
          200,
          requestsView(log, targetUrl(req)?.searchParams ?? new URLSearchParams(), logScope(store, signed)),
          signed,
          info,
          homeNav(),
        );
      }
      if (log && path === REQUESTS_STREAM) {
        const q = targetUrl(req)?.searchParams ?? new URLSearchParams();
        const since = Number(q.get('since') ?? '0');
        const { filter } = requestFilter(q);
        if (log.full) return app.fail(streamsBusy(), info);
        const scope = logScope(store, signed);
        return {
          status: 200,
          headers: {
            'Content-Type': 'text/event-stream; charset=utf-8',
            'Cache-Control': 'no-store',
            'X-Content-Type-Options': 'nosniff',
            'X-Request-Id': info.id,
          },
          body: '',
          stream: (res) =>
            log.stream(res, { ...filter, since: Number.isInteger(since) && since >= 0 ? since : 0 }, scope),
        };
      }
      if (log && path.startsWith(`${REQUESTS_PATH}/`)) {
        let id = '';
        try {
          id = decodeURIComponent(path.slice(REQUESTS_PATH.length + 1));
        } catch {
          /* a broken escape: no such request */
        }
        const view = requestView(log, id, logScope(store, signed));
        if (view) return respond(200, view, signed, info, homeNav());
        return respond(
          404,
          notFoundView('The request log has no request with this id (it keeps the last 10,000).'),
          signed,
          info,
          homeNav(),
        );
      }
      if (path === DASHBOARD || path === `${DASHBOARD}/` || path === `${DASHBOARD}/workspaces`) {
        return respond(200, workspacesView(store, signed), signed, info, homeNav());
      }
      const m = WORKSPACE_PATH.exec(path);
      let ids: string[];
      try {
        ids = m ? [m[1], ...m[2].split('/').slice(1)].map(decodeURIComponent) : [];
      } catch {
        ids = [];
      }
      if (!m || !ids.length)
        return respond(404, notFoundView('There is no dashboard page at this address.'), signed, info, homeNav());
      // Not a member, or no such workspace: one answer, as the API gives one answer for both.
      const membership = memberships(store, signed).find((x) => x.record.id === ids[0]);
      if (!membership) return respond(404, notFoundView('No workspace of yours has this id.'), signed, info, homeNav());
      const url = targetUrl(req);
      const r: WorkspaceRequest = {
        store,
        clock: app.clock,
        services: app.services,
        info,
        req,
        signed,
        workspace: membership.record,
        role: membership.role,
        query: url?.searchParams ?? new URLSearchParams(),
        now: app.clock.now(),
      };
      const nav = workspaceNav(store, membership.record.id, signed, { requestLog: !!log });
      const rest = m[2];
      if (ids[1] === 'open' && ids.length === 3) {
        const target = recordPage(store, membership.record.id, ids[2]);
        // Where the record is says what kind it is: only for a session that may read that section.
        const section = target && sectionOf(target.slice(wsHref(membership.record.id).length).split('#')[0]);
        if (section && !canRead(signed, section))
          return respond(403, missingAbilityView(signed, section, membership.record), signed, info, nav, r);
        if (target) return redirect(target);
        return respond(
          404,
          notFoundView(`Nothing in ${membership.record.name} has the id ${ids[2]}.`),
          signed,
          info,
          nav,
          r,
        );
      }
      for (const [pattern, section, render] of WORKSPACE_PAGES) {
        const hit = pattern.exec(rest);
        if (!hit) continue;
        if (!canRead(signed, section))
          return respond(403, missingAbilityView(signed, section, membership.record), signed, info, nav, r);
        try {
          return respond(200, await render(r, ...hit.slice(1).map(decodeURIComponent)), signed, info, nav, r);
        } catch (err) {
          if (!(err instanceof ProblemError)) throw err;
          const status = problemStatus(err);
          const errors = Object.entries(err.errors ?? {}).map(
            ([k, v]) => html`<li><code>${k}</code>: ${v.join(' ')}</li>`,
          );
          const view: View = {
            title: status === 404 ? 'Not found' : 'This address cannot be shown',
            section: 'overview',
            body: html`<section class="panel"><p>${err.message}</p>${errors.length ? html`<ul>${errors}</ul>` : ''}<p><a href="${DASHBOARD}/workspaces/${membership.record.id}">Back to ${membership.record.name}</a></p></section>`,
          };
          return respond(status, view, signed, info, nav, r);
        }
      }
      return respond(404, notFoundView('There is no dashboard page at this address.'), signed, info, nav, r);
    },
  };
}
