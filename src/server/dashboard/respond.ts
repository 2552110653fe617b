import type { AppResponse } from '../app.js';
import type { RequestInfo } from '../context.js';
import { html, htmlResponse } from '../web/html.js';
import type { SignedIn } from '../web/signin.js';
import { DASHBOARD, page, ROWS_MARKER, type NavEntry, type View } from './chrome.js';
import type { WorkspaceRequest } from './request.js';

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

/** A dashboard page: the view in the chrome, its cached rows spliced in as bytes, the session renewed. */
export function respond(
  status: number,
  view: View,
  signed: SignedIn,
  info: RequestInfo,
  nav: NavEntry[],
  workspace?: WorkspaceRequest,
): AppResponse {
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
}

export const notFoundView = (what: string): View => ({
  title: 'Not found',
  section: 'workspaces',
  body: html`<section class="panel"><p>${what}</p><p><a href="${DASHBOARD}">Back to your workspaces</a></p></section>`,
});

export const readOnlyView: View = {
  title: 'Read-only',
  section: 'workspaces',
  body: html`<p>The dashboard only shows data; change it with the API or <code>wcm</code>.</p>`,
};
