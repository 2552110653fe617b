import type { WorkspaceRecord } from '../../store/records.js';
import { html, layout, raw, type Html } from '../web/html.js';
import type { RowBytes } from './data.js';
import type { SignedIn } from '../web/signin.js';

export const DASHBOARD = '/dashboard';

/** A workspace's page under the dashboard: `/dashboard/workspaces/{w}/{rest}`. */
export const wsHref = (workspaceId: string, rest = ''): string =>
  `${workspaceRoot(workspaceId)}${rest ? `/${rest}` : ''}`;

/** `/dashboard/workspaces/{w}`, the last one kept: a page links to its own workspace a dozen times. */
let lastRoot = { id: '', href: '' };
function workspaceRoot(workspaceId: string): string {
  if (workspaceId !== lastRoot.id)
    lastRoot = { id: workspaceId, href: `${DASHBOARD}/workspaces/${encodeURIComponent(workspaceId)}` };
  return lastRoot.href;
}

/** A path segment from an id (ids are UUIDs, but a stray character must not change the path). */
export const seg = (id: string): string => encodeURIComponent(id);

/** The sections of a workspace, in the side bar's order. */
export type Section =
  | 'overview'
  | 'threads'
  | 'lists'
  | 'forms'
  | 'pages'
  | 'knowledge'
  | 'bookings'
  | 'voice'
  | 'orders'
  | 'events'
  | 'oauth'
  | 'requests'
  | 'workspaces';

export interface NavEntry {
  section: Section;
  label: string;
  href: string;
  count?: number | string;
}

/** What a page hands back: the mount wraps it in the dashboard's chrome. */
export interface View {
  title: string;
  section: Section;
  /** Breadcrumbs before the title, as [label, href]. */
  crumbs?: Array<[string, string]>;
  /** A line under the heading. */
  lead?: Html | string;
  body: Html;
  /** The rows `table` left as ROWS_MARKER in `body`. */
  rows?: RowBytes;
}

/** The dashboard's document: top bar with the user, the workspace's side bar, crumbs and heading. */
export function page(
  view: View,
  ctx: { signed: SignedIn; workspace?: { record: WorkspaceRecord; role: string }; nav: NavEntry[] },
): Html {
  const { signed, workspace, nav } = ctx;
  const side = html`${workspace ? html`<div class="ws"><a href="${wsHref(workspace.record.id)}">${workspace.record.name}</a><span class="role">${workspace.role} · <a href="${DASHBOARD}">switch</a></span></div>` : ''}
<ul>${nav.map(
    (n) =>
      html`<li><a href="${n.href}"${n.section === view.section ? html` aria-current="page"` : ''}><span>${n.label}</span>${n.count !== undefined ? html`<span class="count">${typeof n.count === 'number' ? grouped(n.count) : n.count}</span>` : ''}</a></li>`,
  )}</ul>`;
  const crumbs = view.crumbs?.length
    ? html`<nav class="crumbs" aria-label="Breadcrumbs">${view.crumbs.map(([label, href], i) => html`${i ? html`<span aria-hidden="true">/</span>` : ''}<a href="${href}">${label}</a>`)}</nav>`
    : '';
  const body = html`${crumbs}<div class="pagehead"><div><h1>${view.title}</h1>${view.lead ? html`<p class="muted">${view.lead}</p>` : ''}</div></div>
${view.body}`;
  return layout({
    title: view.title,
    body,
    nav: side,
    home: DASHBOARD,
    user: { name: signed.user.name, email: signed.user.email, signOut: signed.signOut },
    script: true,
  });
}

/**
 * Where a list page's rows go: the page is sent as its text around this comment plus the rows'
 * cached bytes (View.rows). User text is escaped, so it can never produce the comment.
 */
export const ROWS_MARKER = '<!--wcm:rows-->';

/**
 * A table with a header row; `empty` shows when there are no rows. Rows given as bytes are left
 * as ROWS_MARKER, and the view hands the same RowBytes over as `rows`.
 */
export function table(
  head: Array<string | [string, 'num']>,
  rows: Html[] | RowBytes,
  empty: string,
  kind?: string,
): Html {
  const count = Array.isArray(rows) ? rows.length : rows.count;
  if (!count) return html`<div class="tablewrap"><p class="empty">${empty}</p></div>`;
  // A wide table scrolls sideways inside its wrapper: the wrapper takes focus so a keyboard can scroll it (WCAG 2.1.1).
  return html`<div class="tablewrap" tabindex="0" role="region" aria-label="Table: ${head.map((h) => (typeof h === 'string' ? h : h[0])).join(', ')}"><table${kind ? html` class="${kind}"` : ''}><thead><tr>${head.map(
    (h) => (typeof h === 'string' ? html`<th scope="col">${h}</th>` : html`<th scope="col" class="num">${h[0]}</th>`),
  )}</tr></thead><tbody>${Array.isArray(rows) ? rows : raw(ROWS_MARKER)}</tbody></table></div>`;
}

/** A query parameter as a form would send it (a space is `+`). */
const formEncode = (v: string): string => {
  const e = encodeURIComponent(v);
  return e.includes('%20') ? e.replace(/%20/g, '+') : e;
};

/**
 * `base?k=v&…` with the parameters that have a value (encoded as a form would send them); `set`
 * gives one parameter a value of its own (a tab's), in the place it has in `query` or last.
 */
export function withQuery(
  base: string,
  query: Record<string, string | undefined>,
  set?: [string, string | undefined],
): string {
  let s = '';
  const add = (k: string, v: string | undefined) => {
    if (v) s += `${s ? '&' : '?'}${formEncode(k)}=${formEncode(v)}`;
  };
  let placed = false;
  for (const k of Object.keys(query)) {
    if (set && k === set[0]) {
      add(k, set[1]);
      placed = true;
    } else add(k, query[k]);
  }
  if (set && !placed) add(set[0], set[1]);
  return base + s;
}

/** A count with thousands separators, as `toLocaleString('en-US')` writes it (which costs a locale lookup per call). */
export function grouped(n: number): string {
  const s = String(n);
  if (!Number.isSafeInteger(n) || n < 0) return n.toLocaleString('en-US');
  if (n < 1000) return s;
  const head = s.length % 3 || 3;
  let out = s.slice(0, head);
  for (let i = head; i < s.length; i += 3) out += `,${s.slice(i, i + 3)}`;
  return out;
}

/**
 * Keyset paging as the API pages: a link to the next page (the API's `next_cursor`) and, past the
 * first page, one back to the start (a cursor only goes forward).
 */
export function pager(
  base: string,
  query: Record<string, string | undefined>,
  next: string | null,
  shown: number,
  paged: boolean,
): Html {
  const link = (cursor?: string) => withQuery(base, cursor ? { ...query, cursor } : query);
  if (!next && !paged) return html``;
  return html`<nav class="pager" aria-label="Pages"><span>${shown} shown${paged ? ' on this page' : ''}</span><span>${paged ? html`<a href="${link()}">First page</a>` : ''}${paged && next ? ' · ' : ''}${next ? html`<a href="${link(next)}" rel="next">Next page &rarr;</a>` : ''}</span></nav>`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => (n < 10 ? `0${n}` : String(n));

/**
 * `24 Nov 2026, 14:05 UTC` in a <time> element, the same in its title (UTC: the API's timestamps
 * are UTC). The dashboard's script shows it in the viewer's zone; the title keeps UTC on hover.
 */
export function when(iso: string | null | undefined): Html {
  if (!iso) return html`<span class="muted">&mdash;</span>`;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return html`${iso}`;
  const text = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())} UTC`;
  return html`<time datetime="${iso}" title="${text}">${text}</time>`;
}

/** An id in monospace that the dashboard's script gives a copy button (`label` names it for a screen reader). */
export const idCode = (id: string, label = 'id'): Html =>
  html`<code data-copy="${id}" data-copy-label="${label}">${id}</code>`;

/** Filter tabs: one link per value, the current one marked; other filters kept. */
export function tabs(
  base: string,
  name: string,
  values: ReadonlyArray<[string | undefined, string]>,
  current: string | undefined,
  keep: Record<string, string | undefined>,
): Html {
  const href = (v: string | undefined) => withQuery(base, keep, [name, v]);
  return html`<nav class="tabs" aria-label="Filter">${values.map(([v, label]) => html`<a href="${href(v)}"${v === current ? html` aria-current="page"` : ''}>${label}</a>`)}</nav>`;
}

/**
 * A short date for dense lists: the time today, else day and month (and year when not this year)
 * with the time after it (`1 Nov, 09:00`), so an older message still says when in the day it came.
 */
export function shortWhen(iso: string | null, now: Date): Html {
  if (!iso) return html`<span class="muted">&mdash;</span>`;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return html`${iso}`;
  const sameDay =
    d.getUTCFullYear() === now.getUTCFullYear() &&
    d.getUTCMonth() === now.getUTCMonth() &&
    d.getUTCDate() === now.getUTCDate();
  const text = sameDay
    ? `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`
    : `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}${d.getUTCFullYear() === now.getUTCFullYear() ? '' : ` ${d.getUTCFullYear()}`}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`;
  return html`<time datetime="${iso}">${text}</time>`;
}

/** A status in a coloured pill; the tone says whether it is good news. */
export function badge(text: string, tone: 'ok' | 'warn' | 'bad' | 'info' | '' = ''): Html {
  return html`<span class="${tone ? `badge ${tone}` : 'badge'}">${text}</span>`;
}

/** `yes`/`no` for booleans in fact lists. */
export const yesNo = (v: boolean): string => (v ? 'yes' : 'no');

/** A definition list of facts; null values show as a dash. */
export function facts(rows: Array<[string, Html | string | number | null | undefined]>): Html {
  return html`<dl class="facts">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v === null || v === undefined || v === '' ? html`<span class="muted">&mdash;</span>` : v}</dd>`)}</dl>`;
}

/** A JSON value, pretty-printed as escaped text. */
export const jsonBlock = (v: unknown): Html => html`<pre class="prose mono">${JSON.stringify(v, null, 2)}</pre>`;
