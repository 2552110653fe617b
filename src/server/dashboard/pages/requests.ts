import { getOperation } from '../../../contract/operations.js';
import type { LogFilter, LoggedRequest, LogScope, RequestLog } from '../../emulator/log.js';
import { html } from '../../web/html.js';
import { badge, DASHBOARD, facts, jsonBlock, when, withQuery, type View } from '../chrome.js';

export const REQUESTS_PATH = `${DASHBOARD}/requests`;
export const REQUESTS_STREAM = `${REQUESTS_PATH}/stream`;

/** The page's filters from its query, checked like the control plane checks them (bad ones are dropped, and said). */
export function requestFilter(q: URLSearchParams): { filter: LogFilter; problem?: string } {
  const filter: LogFilter = {};
  const status = q.get('status') ?? '';
  const operation = q.get('operation') ?? '';
  if (status && !/^([1-5]xx|[1-5]\d\d)$/i.test(status))
    return { filter, problem: `\`${status}\` is not a status: use 404 or 4xx.` };
  if (operation && !getOperation(operation)) return { filter, problem: `\`${operation}\` is not an operationId.` };
  if (status) filter.status = status.toLowerCase();
  if (operation) filter.operation = operation;
  return { filter };
}

const tone = (status: number) => (status >= 500 ? 'bad' : status >= 400 ? 'warn' : 'ok');
const detailHref = (e: LoggedRequest) => `${REQUESTS_PATH}/${encodeURIComponent(e.request_id)}`;

const row = (e: LoggedRequest) =>
  html`<tr><td class="nowrap mono">${e.time.slice(11, 23)}</td><td>${badge(String(e.status), tone(e.status))}</td><td>${e.method}</td><td class="path">${e.operation ? html`${e.operation}<span class="sub">${e.path}</span>` : e.path}</td><td class="num">${e.duration_ms}</td><td>${e.problem ?? ''}</td><td class="mono"><a href="${detailHref(e)}">${e.request_id}</a></td></tr>`;

/**
 * `/dashboard/requests`: the request log, newest first; new requests appear live. The live part is
 * /assets/requests.js (no inline script: the page's CSP allows scripts from this origin only) on
 * an EventSource of /dashboard/requests/stream, which the session cookie authorizes.
 */
export function requestsView(log: RequestLog, q: URLSearchParams, scope: LogScope): View {
  const { filter, problem } = requestFilter(q);
  const entries = log.query({ ...filter, limit: 200 }, scope).reverse();
  const stream = withQuery(REQUESTS_STREAM, {
    status: filter.status,
    operation: filter.operation,
    since: String(entries[0]?.seq ?? 0),
  });
  return {
    title: 'Request log',
    section: 'requests',
    lead: html`The last requests this server answered (it keeps 10,000), newest first. New ones appear as they arrive. The dashboard's own pages, /healthz and the favicon are not shown here (<code>wcm logs --all</code> shows them).`,
    body: html`${problem ? html`<div class="alert" role="alert">${problem}</div>` : ''}
<form method="get" action="${REQUESTS_PATH}" class="filters"><label>Status <input name="status" value="${filter.status ?? ''}" placeholder="4xx" size="5"></label> <label>Operation <input name="operation" value="${filter.operation ?? ''}" placeholder="listThreads" size="22"></label> <button type="submit" class="secondary">Filter</button></form>
<div class="tablewrap" tabindex="0" role="region" aria-label="Request log"><table id="request-log" data-stream="${stream}"><thead><tr><th scope="col">Time (UTC)</th><th scope="col">Status</th><th scope="col">Method</th><th scope="col">Operation and path</th><th scope="col" class="num">ms</th><th scope="col">Problem</th><th scope="col">Request id</th></tr></thead>
<tbody>${entries.map(row)}</tbody></table></div>
${entries.length ? '' : html`<p class="empty">No requests yet.</p>`}
<script src="/assets/requests.js" defer></script>`,
  };
}

/** `/dashboard/requests/{request_id}`: one logged request, every field the log keeps (in the session's scope, as the list). */
export function requestView(log: RequestLog, requestId: string, scope: LogScope): View | undefined {
  const e = log.query({ all: true }, scope).find((x) => x.request_id === requestId);
  if (!e) return undefined;
  return {
    title: `${e.method} ${e.path}`,
    section: 'requests',
    crumbs: [['Request log', REQUESTS_PATH]],
    lead: html`${badge(String(e.status), tone(e.status))} ${e.operation ?? 'no operation'} · ${e.duration_ms} ms`,
    body: html`<section class="panel">${facts([
      ['Time', when(e.time)],
      ['Method', e.method],
      ['Path', html`<code class="wrap">${e.path}</code>`],
      ['Operation', e.operation],
      ['Status', String(e.status)],
      ['Problem', e.problem],
      ['Duration', `${e.duration_ms} ms`],
      ['Request id', html`<code data-copy="${e.request_id}" data-copy-label="request id">${e.request_id}</code>`],
      ['Client', e.client],
    ])}</section>
${e.request_body !== undefined ? html`<h2>Request body (masked)</h2>${jsonBlock(parsedOrText(e.request_body))}` : html`<p class="muted small">Bodies are kept only with <code>wcm serve --log-bodies</code>.</p>`}
<p><a href="${REQUESTS_PATH}">Back to the request log</a></p>`,
  };
}

/** A logged body as JSON when it is JSON (pretty-printed), else its text. */
function parsedOrText(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/** The page's script: rows built with textContent only (nothing from the log is ever parsed as HTML). */
export const REQUESTS_JS = `(() => {
  const table = document.getElementById('request-log');
  if (!table || !window.EventSource) return;
  const body = table.tBodies[0];
  const source = new EventSource(table.dataset.stream);
  source.addEventListener('request', (event) => {
    const e = JSON.parse(event.data);
    const tr = document.createElement('tr');
    const cell = (text, cls) => { const td = document.createElement('td'); td.textContent = text; if (cls) td.className = cls; tr.appendChild(td); return td; };
    cell(e.time.slice(11, 23), 'nowrap mono');
    const badge = document.createElement('span');
    badge.className = 'badge ' + (e.status >= 500 ? 'bad' : e.status >= 400 ? 'warn' : 'ok');
    badge.textContent = String(e.status);
    cell('').appendChild(badge);
    cell(e.method);
    const what = cell(e.operation || e.path, 'path');
    if (e.operation) {
      const sub = document.createElement('span');
      sub.className = 'sub';
      sub.textContent = e.path;
      what.appendChild(sub);
    }
    cell(String(e.duration_ms), 'num');
    cell(e.problem || '');
    const link = document.createElement('a');
    link.href = '${REQUESTS_PATH}/' + encodeURIComponent(e.request_id);
    link.textContent = e.request_id;
    cell('', 'mono').appendChild(link);
    body.insertBefore(tr, body.firstChild);
    while (body.rows.length > 500) body.deleteRow(-1);
  });
})();
`;
