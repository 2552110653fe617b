import type { Page, ReadTx, SortKey, StoreEngine } from '../../store/engine/interface.js';
import type { UserRecord } from '../../store/records.js';
import type { AppResponse } from '../app.js';
import { Html, html, htmlResponse, layout, messagePage } from './html.js';

/** The sign-in page: the account chooser on a loopback server, else the personal access token form. */
export async function signInPage(
  o: { prefix: string; loopback: boolean; db: StoreEngine; purpose?: string },
  p: { status: number; action: string; csrf: string; alert?: Html | string; headers: Record<string, string> },
): Promise<AppResponse> {
  const hidden = html`<input type="hidden" name="csrf" value="${p.csrf}">`;
  const body = html`<section class="signin panel">
<h1>Sign in</h1>
${o.purpose ? html`<p class="muted">${o.purpose}</p>` : ''}
${p.alert ? html`<div class="alert" role="alert">${p.alert}</div>` : ''}
${o.loopback ? chooser(await o.db.read(everyUser), p.action, hidden) : tokenForm(p.action, hidden)}
</section>`;
  return htmlResponse(p.status, layout({ title: 'Sign in', body, home: o.prefix }), { headers: p.headers });
}

/** Every user of the store, by name (the index of users by name, a page at a time). */
async function everyUser(tx: ReadTx): Promise<UserRecord[]> {
  const out: UserRecord[] = [];
  let after: SortKey | null = null;
  for (;;) {
    const page: Page<UserRecord> = await tx.page('users', 'usersByName', { partition: '*', after, limit: 500 });
    out.push(...page.items);
    if (!page.more) return out.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    after = page.last;
  }
}

function chooser(users: UserRecord[], action: string, hidden: Html): Html {
  return html`<p class="muted">This server listens on a loopback address, so you may act as any user in its store. Choose an account.</p>
<form method="post" action="${action}">${hidden}
<ul class="accounts">${users.map(
    (u) =>
      html`<li><button type="submit" name="user" value="${u.id}"><span class="avatar" aria-hidden="true">${initials(u.name)}</span><span><span class="name">${u.name}</span><span class="email">${u.email}</span></span></button></li>`,
  )}</ul>
${users.length ? '' : html`<p class="empty">The store has no users yet.</p>`}
</form>`;
}

function tokenForm(action: string, hidden: Html): Html {
  return html`<form method="post" action="${action}">${hidden}
<div class="field"><label for="token">Personal access token</label>
<input type="password" id="token" name="token" autocomplete="off" spellcheck="false" required aria-describedby="token-hint">
<p class="hint" id="token-hint">One of your tokens that starts with <code>wcm_pat_</code>. It is checked once and never kept in the page or the cookie.</p></div>
<p><button type="submit">Sign in</button></p>
</form>`;
}

/** A form whose CSRF check failed: 403, nothing changed. */
export const formExpired = (prefix: string): AppResponse =>
  messagePage(
    403,
    'This form has expired',
    'The form was not sent from this page, or it is too old. Go back, reload the page and try again. Nothing was changed.',
    { home: prefix },
  );

/** 405 from the sign-in page (GET and POST) or the sign-out form (POST). */
export function notAllowed(prefix: string, page: 'in' | 'out'): AppResponse {
  if (page === 'in')
    return messagePage(405, 'Method not allowed', 'The sign-in page answers GET and POST only.', {
      home: prefix,
      headers: { Allow: 'GET, HEAD, POST' },
    });
  return messagePage(
    405,
    'Method not allowed',
    'Sign out with the button at the top of any page (a POST with its form).',
    {
      home: prefix,
      headers: { Allow: 'POST' },
    },
  );
}

/** Up to two initials for the account chooser's avatar. */
function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  return (parts.length > 1 ? parts[0][0] + parts[parts.length - 1][0] : (parts[0] ?? '?').slice(0, 2)).toUpperCase();
}
