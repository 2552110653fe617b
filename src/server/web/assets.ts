import { createHash } from 'node:crypto';
import type { AppResponse, Mount } from '../app.js';
import { WCM_CSS } from './stylesheet.js';

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

const BUILT_IN: Record<string, Asset> = { 'wcm.css': { type: 'text/css; charset=utf-8', body: WCM_CSS } };

/** The `/assets` mount: `wcm.css` plus any `extra` files (a page's script, kept out of the HTML). */
export function assetsMount(extra: Record<string, Asset> = {}): Mount {
  const files = new Map(Object.entries({ ...BUILT_IN, ...extra }).map(([name, a]) => [name, { ...a, etag: `"${version(a.body)}"` }]));
  return {
    prefix: ASSETS_PREFIX,
    handle(req, info): AppResponse {
      const name = info.path.slice(ASSETS_PREFIX.length + 1);
      const file = files.get(name);
      const base = { 'X-Content-Type-Options': 'nosniff', 'X-Request-Id': info.id };
      if (!file) return { status: 404, headers: { ...base, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }, body: 'Not found.\n' };
      if (info.method !== 'GET' && info.method !== 'HEAD') {
        return { status: 405, headers: { ...base, Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }, body: 'Only GET and HEAD.\n' };
      }
      const headers = { ...base, 'Content-Type': file.type, 'Cache-Control': 'public, max-age=31536000, immutable', ETag: file.etag };
      if (req.headers['if-none-match'] === file.etag) return { status: 304, headers, body: '' };
      return { status: 200, headers, body: file.body };
    },
  };
}
