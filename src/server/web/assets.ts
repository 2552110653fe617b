import { createHash } from 'node:crypto';
import type { AppResponse, Routes } from '../app.js';
import { ANY } from '../router.js';
import { WCM_CSS } from './stylesheet.js';
import { DASHBOARD_JS } from './script.js';

export const ASSETS_PREFIX = '/assets';

/** A static file the server's pages load (from this origin only: the CSP allows nothing else). */
export interface Asset {
  type: string;
  body: string;
}

const version = (body: string) => createHash('sha256').update(body).digest('hex').slice(0, 10);

/**
 * The stylesheet's address. Its version is part of the query, so browsers may keep it a year and
 * still get a changed stylesheet right after an upgrade.
 */
export const STYLESHEET_HREF = `${ASSETS_PREFIX}/wcm.css?v=${version(WCM_CSS)}`;

/** The brand's mark as the tab's icon (no .ico to build: every current browser takes an SVG). */
const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2f54c8"/><text x="16" y="22" font-family="system-ui,sans-serif" font-size="18" font-weight="700" fill="#fff" text-anchor="middle">w</text></svg>';
const FAVICON: Asset = { type: 'image/svg+xml', body: FAVICON_SVG };

/** The icon's address in the pages' `<link rel="icon">` (browsers then never ask for /favicon.ico). */
export const FAVICON_HREF = `${ASSETS_PREFIX}/favicon.svg?v=${version(FAVICON_SVG)}`;

const BUILT_IN: Record<string, Asset> = {
  'wcm.css': { type: 'text/css; charset=utf-8', body: WCM_CSS },
  'favicon.svg': FAVICON,
  'dashboard.js': { type: 'text/javascript; charset=utf-8', body: DASHBOARD_JS },
};

/** The dashboard's one script (local times, copy buttons, the menu on a phone): from this origin, never inline. */
export const DASHBOARD_SCRIPT_HREF = `${ASSETS_PREFIX}/dashboard.js?v=${version(DASHBOARD_JS)}`;

const PLAIN = 'text/plain; charset=utf-8';

/**
 * `/favicon.ico`, which browsers and tools ask for on their own (the same icon, so no 404 lands in
 * the request log), and `/assets/…`: `wcm.css` plus any `extra` files (a page's script, kept out
 * of the HTML). The assets are a mount: every name under it is looked up as sent, unknown ones 404.
 */
export function assetRoutes(extra: Record<string, Asset> = {}): Routes {
  const files = new Map(
    Object.entries({ ...BUILT_IN, ...extra }).map(([name, a]) => [name, { ...a, etag: `"${version(a.body)}"` }]),
  );
  const icon = { ...FAVICON, etag: `"${version(FAVICON_SVG)}"` };
  const iconHeaders = (id: string) => ({
    'X-Content-Type-Options': 'nosniff',
    'X-Request-Id': id,
    'Content-Type': FAVICON.type,
    'Cache-Control': 'public, max-age=86400',
    ETag: icon.etag,
  });
  return (r) =>
    r
      .on(['GET', 'HEAD'], '/favicon.ico', (x) => ({ status: 200, headers: iconHeaders(x.info.id), body: FAVICON_SVG }))
      .on(ANY, '/favicon.ico', (x) => ({
        status: 405,
        headers: { ...iconHeaders(x.info.id), Allow: 'GET, HEAD', 'Content-Type': PLAIN },
        body: 'Only GET and HEAD.\n',
      }))
      .mount(ASSETS_PREFIX, ({ req, info }): AppResponse => {
        const file = files.get(info.path.slice(ASSETS_PREFIX.length + 1));
        const base = { 'X-Content-Type-Options': 'nosniff', 'X-Request-Id': info.id };
        if (!file)
          return {
            status: 404,
            headers: { ...base, 'Content-Type': PLAIN, 'Cache-Control': 'no-store' },
            body: 'Not found.\n',
          };
        if (info.method !== 'GET' && info.method !== 'HEAD')
          return {
            status: 405,
            headers: { ...base, Allow: 'GET, HEAD', 'Content-Type': PLAIN },
            body: 'Only GET and HEAD.\n',
          };
        const headers = {
          ...base,
          'Content-Type': file.type,
          'Cache-Control': 'public, max-age=31536000, immutable',
          ETag: file.etag,
        };
        if (req.headers['if-none-match'] === file.etag) return { status: 304, headers, body: '' };
        return { status: 200, headers, body: file.body };
      });
}
