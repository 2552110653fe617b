import type { StoreEngine } from '../../store/engine/interface.js';
import type { AppResponse, Call, Middleware, RouteHandler, Routes } from '../app.js';
import { guarded } from '../chain.js';
import { ProblemError } from '../problems.js';
import { Router } from '../router.js';
import { html, redirect } from '../web/html.js';
import type { Sessions } from '../web/session.js';
import { signIn, targetUrl, type SignedIn, type SignIn } from '../web/signin.js';
import { canRead, missingAbilityView } from './access.js';
import { DASHBOARD, wsHref, type NavEntry, type Section, type View } from './chrome.js';
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
import { eventStream, streamsBusy, type LogScope, type RequestLog } from '../emulator/log.js';
import { recordPage } from './pages/open.js';
import { bookingsView, threadsView, threadView, voiceView } from './pages/engagement.js';
import {
  membershipOf,
  memberships,
  overviewView,
  workspaceNav,
  workspacesNav,
  workspacesView,
  type Membership,
} from './pages/workspaces.js';
import type { WorkspaceRequest } from './request.js';
import { notFoundView, readOnlyView, respond } from './respond.js';

declare module '../chain.js' {
  interface Call {
    /** The dashboard's signed-in session, once its session step has passed. */
    signed?: SignedIn;
  }
}

export interface DashboardOptions {
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

/** A workspace's pages, by the path after `/dashboard/workspaces/{workspace}`, and the section each belongs to. */
const WORKSPACE_PAGES: Array<[string, Section, WorkspacePage]> = [
  ['', 'overview', overviewView],
  ['/lists', 'lists', listingsView],
  ['/lists/{list}', 'lists', listingView],
  ['/forms', 'forms', formsView],
  ['/forms/{form}', 'forms', formView],
  ['/pages', 'pages', pagesView],
  ['/pages/{page}', 'pages', pageView],
  ['/knowledge', 'knowledge', knowledgeListsView],
  ['/knowledge/{list}', 'knowledge', articlesView],
  ['/knowledge/{list}/articles/{article}', 'knowledge', articleView],
  ['/threads', 'threads', threadsView],
  ['/threads/{thread}', 'threads', threadView],
  ['/bookings', 'bookings', bookingsView],
  ['/voice', 'voice', voiceView],
  ['/orders', 'orders', ordersView],
  ['/events', 'events', eventsView],
  ['/oauth', 'oauth', oauthView],
];

const WORKSPACE = `${DASHBOARD}/workspaces/{workspace}`;

/** The section of a workspace page, by the path after `/dashboard/workspaces/{w}`. */
const sections = new Router<Section>();
for (const [path, section] of WORKSPACE_PAGES) sections.on('GET', path, section);
const sectionOf = (rest: string): Section | undefined => {
  const m = sections.match('GET', rest);
  return m.kind === 'ok' ? m.target : undefined;
};

/** A problem the pages raise (a record of another workspace, a bad cursor) as its status and words. */
function problemStatus(p: ProblemError): number {
  return p.status === 422 ? 400 : p.status;
}

/** One address per workspace page: no empty segment, every escape decodes (else no page is there). */
function wellFormed(path: string): boolean {
  if (path.includes('//')) return false;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** What of the request log a signed-in user sees: requests to the workspaces the session reaches (TRUST §5). */
const logScope = (reached: readonly Membership[]): LogScope => ({
  workspaces: new Set(reached.map((m) => m.record.id.toLowerCase())),
});

/** What the dashboard's steps share: the store, its sign-in, and the request log (loopback only). */
interface Dash {
  auth: SignIn;
  log?: RequestLog;
}

/** The session's workspaces, in a read of their own. */
const mine = (db: StoreEngine, signed: SignedIn) => db.read((tx) => memberships(tx, signed));

const homeNav = (d: Dash, reached: readonly Membership[]) => workspacesNav(reached, { requestLog: !!d.log });

/** Every page but sign-in: a session, read-only methods, and one address per page. */
const session =
  (d: Dash): Middleware<Call> =>
  async (x, next) => {
    const { req, info } = x;
    const signed = await d.auth.requireSession(req, info);
    if (!('user' in signed)) return signed;
    x.signed = signed;
    if (info.method !== 'GET' && info.method !== 'HEAD') {
      const res = respond(405, readOnlyView, signed, info, []);
      res.headers.Allow = 'GET, HEAD';
      return res;
    }
    // One address per page: relative links (the inbox's rows) resolve against it.
    if (info.path.length > DASHBOARD.length + 1 && info.path.endsWith('/'))
      return redirect(info.path.replace(/\/+$/, '') + (targetUrl(req)?.search ?? ''));
    return next(x);
  };

/** A page outside the workspaces, with the home side bar (the session's workspaces, read once). */
const homePage = (
  d: Dash,
  view: (x: Call, signed: SignedIn, reached: readonly Membership[]) => View | Promise<View>,
  status = 200,
): RouteHandler =>
  guarded([session(d)], async (x) => {
    const reached = await mine(x.app.db, x.signed!);
    return respond(status, await view(x, x.signed!, reached), x.signed!, x.info, homeNav(d, reached));
  });

const noPage = (d: Dash) => homePage(d, () => notFoundView('There is no dashboard page at this address.'), 404);

/** A workspace's page: the path well formed, the session's membership, then `render`. */
function inWorkspace(
  d: Dash,
  render: (x: Call, r: WorkspaceRequest, nav: NavEntry[]) => AppResponse | Promise<AppResponse>,
): RouteHandler {
  const missing = noPage(d);
  return guarded([session(d)], async (x) => {
    const { req, info } = x;
    const signed = x.signed!;
    if (!wellFormed(info.path)) return missing(x);
    // The workspace, the session's membership and the side bar's counts, in one read.
    type Found = { membership: Membership; nav: NavEntry[] } | { membership?: undefined; reached: Membership[] };
    const found = await x.app.db.read(async (tx): Promise<Found> => {
      const membership = membershipOf(await tx.get('workspaces', x.params.workspace), signed);
      if (!membership) return { reached: await memberships(tx, signed) };
      const nav = await workspaceNav(tx, membership.record.id, signed, { requestLog: !!d.log });
      return { membership, nav };
    });
    // Not a member, or no such workspace: one answer, as the API gives one answer for both.
    if (!found.membership)
      return respond(404, notFoundView('No workspace of yours has this id.'), signed, info, homeNav(d, found.reached));
    const { membership, nav } = found;
    const r: WorkspaceRequest = {
      db: x.app.db,
      clock: x.app.clock,
      services: x.app.services,
      handlers: x.app.handlers,
      info,
      req,
      signed,
      workspace: membership.record,
      role: membership.role,
      query: targetUrl(req)?.searchParams ?? new URLSearchParams(),
      now: x.app.clock.now(),
    };
    return render(x, r, nav);
  });
}

/** One of WORKSPACE_PAGES: 403 naming the ability where the session may not read the section. */
const workspacePage = (d: Dash, section: Section, view: WorkspacePage) =>
  inWorkspace(d, async (x, r, nav) => {
    const { signed, workspace } = r;
    if (!canRead(signed, section))
      return respond(403, missingAbilityView(signed, section, workspace), signed, x.info, nav, r);
    const [, ...ids] = Object.values(x.params);
    try {
      return respond(200, await view(r, ...ids), signed, x.info, nav, r);
    } catch (err) {
      if (!(err instanceof ProblemError)) throw err;
      return respond(problemStatus(err), problemView(err, workspace.id, workspace.name), signed, x.info, nav, r);
    }
  });

/** `…/open/{record}`: to the record's page, by where the record is; only for a session that may read that section. */
const openRecord = (d: Dash) =>
  inWorkspace(d, async (x, r, nav) => {
    const { signed, workspace } = r;
    const target = await x.app.db.read((tx) => recordPage(tx, workspace.id, x.params.record));
    const section = target && sectionOf(target.slice(wsHref(workspace.id).length).split('#')[0]);
    if (section && !canRead(signed, section))
      return respond(403, missingAbilityView(signed, section, workspace), signed, x.info, nav, r);
    if (target) return redirect(target);
    const missing = notFoundView(`Nothing in ${workspace.name} has the id ${x.params.record}.`);
    return respond(404, missing, signed, x.info, nav, r);
  });

/** `/dashboard/requests/{id}`: one logged request, if the session may see it. */
async function requestPage(d: Dash, log: RequestLog, x: Call): Promise<AppResponse> {
  const signed = x.signed!;
  let id = '';
  try {
    id = decodeURIComponent(x.info.path.slice(REQUESTS_PATH.length + 1));
  } catch {
    /* a broken escape: no such request */
  }
  const reached = await mine(x.app.db, signed);
  const view = requestView(log, id, logScope(reached));
  if (view) return respond(200, view, signed, x.info, homeNav(d, reached));
  const missing = notFoundView('The request log has no request with this id (it keeps the last 10,000).');
  return respond(404, missing, signed, x.info, homeNav(d, reached));
}

/** `/dashboard/requests/stream`: the log as Server-Sent Events, scoped to the session's workspaces. */
async function requestStream(d: Dash, log: RequestLog, x: Call): Promise<AppResponse> {
  const q = targetUrl(x.req)?.searchParams ?? new URLSearchParams();
  const since = Number(q.get('since') ?? '0');
  const { filter } = requestFilter(q);
  if (log.full) throw streamsBusy();
  const scope = logScope(await mine(x.app.db, x.signed!));
  return eventStream(x.info.id, (res) =>
    log.stream(res, { ...filter, since: Number.isInteger(since) && since >= 0 ? since : 0 }, scope),
  );
}

/**
 * The read-only dashboard (docs/dashboard.md) under `/dashboard`: server-rendered pages over the
 * same store, handlers and indexes as the API. Only signed-in users, and only for workspaces they
 * are a member of: anything else is the same 404 as a record that does not exist.
 */
export function dashboardRoutes(options: DashboardOptions): Routes {
  const { sessions, loopback } = options;
  const purpose = 'to open the wcm dashboard (read-only).';
  const auth = signIn({ prefix: DASHBOARD, loopback, sessions, purpose });
  const d: Dash = { auth, log: loopback ? options.requestLog : undefined };
  return (router) => {
    auth.routes(router);
    const page = (path: string, handler: RouteHandler) => router.on(['GET', 'HEAD'], path, handler);
    const { log } = d;
    if (log) {
      const query = (x: Call) => targetUrl(x.req)?.searchParams ?? new URLSearchParams();
      page(
        REQUESTS_PATH,
        homePage(d, (x, _, reached) => requestsView(log, query(x), logScope(reached))),
      );
      page(
        REQUESTS_STREAM,
        guarded([session(d)], (x) => requestStream(d, log, x)),
      );
      page(
        `${REQUESTS_PATH}/*`,
        guarded([session(d)], (x) => requestPage(d, log, x)),
      );
    }
    const home = homePage(d, (x, signed, reached) => workspacesView(x.app.db, signed, reached));
    for (const path of [DASHBOARD, `${DASHBOARD}/`, `${DASHBOARD}/workspaces`]) page(path, home);
    for (const [path, section, view] of WORKSPACE_PAGES) page(`${WORKSPACE}${path}`, workspacePage(d, section, view));
    page(`${WORKSPACE}/open/{record}`, openRecord(d));
    const missing = notFoundView('There is no dashboard page at this address.');
    page(
      `${WORKSPACE}/*`,
      inWorkspace(d, (x, r, nav) => respond(404, missing, r.signed, x.info, nav, r)),
    );
    // Any other address or method: the session first, then the read-only 405 or this 404.
    router.mount(DASHBOARD, noPage(d));
  };
}

/** A problem a page raised (a record of another workspace, a bad cursor), shown in the workspace. */
function problemView(err: ProblemError, workspaceId: string, workspaceName: string): View {
  const status = problemStatus(err);
  const errors = Object.entries(err.errors ?? {}).map(([k, v]) => html`<li><code>${k}</code>: ${v.join(' ')}</li>`);
  return {
    title: status === 404 ? 'Not found' : 'This address cannot be shown',
    section: 'overview',
    body: html`<section class="panel"><p>${err.message}</p>${errors.length ? html`<ul>${errors}</ul>` : ''}<p><a href="${DASHBOARD}/workspaces/${workspaceId}">Back to ${workspaceName}</a></p></section>`,
  };
}
