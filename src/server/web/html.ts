import type { AppResponse } from '../app.js';
import { partsResponse } from '../response.js';
import { DASHBOARD_SCRIPT_HREF, FAVICON_HREF, STYLESHEET_HREF } from './assets.js';

/**
 * Markup that is already safe: produced by the `html` template or wrapped by `raw`. Anything else
 * interpolated into `html` is text and gets escaped, so every user string is escaped by construction.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const SPECIAL = /[&<>"']/g;
const ANY_SPECIAL = /[&<>"']/;

/** Text as HTML: `& < > " '` become entities (safe in element content and quoted attributes). */
export function escapeHtml(text: string): string {
  // Most values (ids, dates, counts) have nothing to escape: one test, no new string.
  return ANY_SPECIAL.test(text) ? text.replace(SPECIAL, (c) => ESCAPES[c]) : text;
}

/** Trusted markup, inserted as is. Only for constants and the output of `html`. */
export function raw(trusted: string): Html {
  return new Html(trusted);
}

/** One interpolated value: markup as is, arrays joined, nothing for null/undefined/false, text escaped. */
function render(value: unknown): string {
  if (value instanceof Html) return value.text;
  // Empty text (a condition's `''`) and numbers (counts) have nothing to escape.
  if (value === null || value === undefined || value === false || value === '') return '';
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) {
    let out = '';
    for (const v of value) out += render(v);
    return out;
  }
  return escapeHtml(String(value));
}

/** The only way pages build markup: every interpolated value is escaped unless it is `Html`. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

export interface LayoutOptions {
  /** The document's title (the tab); also the page's heading unless `heading` is false. */
  title: string;
  body: Html;
  /** Navigation shown in the side bar (a list of links, rendered by the caller with `html`). */
  nav?: Html;
  /** Where the brand in the top bar links to (the mount's start page). */
  home?: string;
  /** The signed-in user, shown in the top bar with a sign-out button when `signOut` is given. */
  user?: { name: string; email?: string; signOut?: { action: string; csrf: string } };
  /** Load the dashboard's script (/assets/dashboard.js); the page's CSP must then allow `script-src 'self'`. */
  script?: boolean;
}

/** A full HTML5 document: one stylesheet from /assets, no inline script, no inline style. */
export function layout({ title, body, nav, home, user, script }: LayoutOptions): Html {
  const signOut = user?.signOut
    ? html`<form method="post" action="${user.signOut.action}" class="inline"><input type="hidden" name="csrf" value="${user.signOut.csrf}"><button type="submit" class="link">Sign out</button></form>`
    : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · wcm</title>
<link rel="stylesheet" href="${STYLESHEET_HREF}">
<link rel="icon" href="${FAVICON_HREF}" type="image/svg+xml">
${
  script
    ? html`<script src="${DASHBOARD_SCRIPT_HREF}" defer></script>
`
    : ''
}</head>
<body>
<header class="topbar">${nav && script ? html`<button type="button" class="navtoggle" aria-controls="side" aria-expanded="false">Menu</button>` : ''}<a class="brand" href="${home ?? '/'}"><span class="mark" aria-hidden="true">w</span>wcm</a>${user ? html`<div class="who"><span class="user" title="${user.email ?? ''}">${user.name}</span>${signOut}</div>` : ''}</header>
<div class="${nav ? 'frame' : 'frame single'}">
${nav ? html`<nav class="side" id="side" aria-label="Sections">${nav}</nav>` : ''}
<main id="main">
${body}
</main>
</div>
</body>
</html>
`;
}

/** Content-Security-Policy directives; `htmlResponse`'s `csp` option replaces single ones. */
export type CspDirectives = Record<string, string>;

/** No script at all, styles and images from this origin only, never framed. */
export const DEFAULT_CSP: Readonly<CspDirectives> = Object.freeze({
  'default-src': "'none'",
  'style-src': "'self'",
  'img-src': "'self' data:",
  'connect-src': "'self'",
  'form-action': "'self'",
  'frame-ancestors': "'none'",
  'base-uri': "'none'",
});

const DEFAULT_CSP_HEADER = Object.entries(DEFAULT_CSP)
  .map(([k, v]) => `${k} ${v}`)
  .join('; ');

/** Headers already written, by the overrides object (the dashboard passes one constant on every page). */
const cspHeaders = new WeakMap<CspDirectives, string>();

export function cspHeader(overrides?: CspDirectives): string {
  if (!overrides) return DEFAULT_CSP_HEADER;
  let text = cspHeaders.get(overrides);
  if (text === undefined) {
    const all: CspDirectives = { ...DEFAULT_CSP, ...overrides };
    text = Object.entries(all)
      .map(([k, v]) => `${k} ${v}`)
      .join('; ');
    cspHeaders.set(overrides, text);
  }
  return text;
}

/** The headers every page carries (no caching: pages show private data). */
function pageHeaders(csp?: CspDirectives): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    // Not no-referrer: Chrome then sends `Origin: null` on same-origin form posts, which the Origin rule refuses.
    'Referrer-Policy': 'same-origin',
    'Content-Security-Policy': cspHeader(csp),
  };
}

/**
 * A page as an AppResponse. `csp` replaces single directives (the OAuth consent page widens
 * `form-action` to its redirect URI's origin, since Chromium applies it to the redirect after a POST).
 */
export function htmlResponse(
  status: number,
  document: Html | string | readonly Buffer[],
  options: { headers?: Record<string, string>; csp?: CspDirectives } = {},
): AppResponse {
  const headers = { ...pageHeaders(options.csp), ...options.headers };
  if (!Array.isArray(document)) return { status, headers, body: String(document) };
  // A document already in UTF-8 pieces (cached rows): sent as they are, joined only if read as text.
  return partsResponse(status, headers, document as readonly Buffer[]);
}

/** 303 See Other: where a form POST (or a page that needs sign-in) sends the browser next. */
export function redirect(location: string, headers: Record<string, string> = {}): AppResponse {
  return { status: 303, headers: { ...pageHeaders(), Location: location, ...headers }, body: '' };
}

/** A form body that cannot be read: the caller answers 400. */
export class FormError extends Error {}

/** An `application/x-www-form-urlencoded` body; a key given twice is a FormError (never a silent pick). */
export function parseForm(body: Buffer | string): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'))) {
    if (Object.hasOwn(out, k)) throw new FormError(`The form field \`${k}\` was sent more than once.`);
    out[k] = v;
  }
  return out;
}

/** A short page that says what went wrong and what to do (403 CSRF, 404, 405, …). */
export function messagePage(
  status: number,
  title: string,
  message: Html | string,
  options: { home?: string; headers?: Record<string, string> } = {},
): AppResponse {
  const body = html`<section class="panel signin"><h1>${title}</h1><p>${message}</p>${options.home ? html`<p><a href="${options.home}">Back to the start page</a></p>` : ''}</section>`;
  return htmlResponse(status, layout({ title, body, home: options.home }), { headers: options.headers });
}
