import { describe, expect, it } from 'vitest';
import {
  cspHeader,
  escapeHtml,
  FormError,
  html,
  htmlResponse,
  layout,
  parseForm,
  raw,
  redirect,
} from '../../../src/server/web/html.js';
import { assetRoutes, STYLESHEET_HREF } from '../../../src/server/web/assets.js';
import { App } from '../../../src/server/app.js';
import { inProcess, sendJson } from '../../support/server.js';

describe('html escaping', () => {
  it.each([
    ['<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
    ['"quoted" and \'single\'', '&quot;quoted&quot; and &#39;single&#39;'],
    ['fish & chips', 'fish &amp; chips'],
    ['&amp; already', '&amp;amp; already'],
    ['<img src=x onerror=alert(1)>', '&lt;img src=x onerror=alert(1)&gt;'],
    ['plain', 'plain'],
  ])('%s', (input, expected) => {
    expect(escapeHtml(input)).toBe(expected);
    expect(html`<p>${input}</p>`.text).toBe(`<p>${expected}</p>`);
    expect(html`<a title="${input}">x</a>`.text).toBe(`<a title="${expected}">x</a>`);
  });

  it('leaves html fragments and raw() alone, joins arrays, drops null/undefined/false', () => {
    const items = ['<a>', 'b&'].map((s) => html`<li>${s}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}${raw('<br>')}`.text).toBe(
      '<ul><li>&lt;a&gt;</li><li>b&amp;</li></ul>0<br>',
    );
  });

  it('escapes a value that only looks like a fragment (a string is never trusted)', () => {
    const fake = { text: '<script>x</script>' };
    expect(html`${fake}`.text).toBe('[object Object]');
    expect(html`${String('<b>')}`.text).toBe('&lt;b&gt;');
  });
});

describe('layout and htmlResponse', () => {
  const doc = layout({
    title: 'T <1>',
    body: html`<p>${'<script>x</script>'}</p>`,
    user: { name: 'Ada <A>', signOut: { action: '/x/sign-out', csrf: 'c"1' } },
  });

  it('is a full document with one stylesheet, no script and no inline style', () => {
    const text = doc.text;
    expect(text.startsWith('<!doctype html>')).toBe(true);
    expect(text).toContain('<html lang="en">');
    expect(text).toContain('<meta charset="utf-8">');
    expect(text).toContain('name="viewport"');
    expect(text).toContain(`<link rel="stylesheet" href="${STYLESHEET_HREF}">`);
    expect(STYLESHEET_HREF).toMatch(/^\/assets\/wcm\.css\?v=[0-9a-f]{10}$/);
    expect(text).not.toMatch(/<script/i);
    expect(text).not.toMatch(/\sstyle=/i);
    expect(text).not.toMatch(/\son[a-z]+=/i);
    expect(text).toContain('<title>T &lt;1&gt; · wcm</title>');
    expect(text).toContain('Ada &lt;A&gt;');
    expect(text).toContain('value="c&quot;1"');
  });

  it('sends the security headers and the default CSP', () => {
    const res = htmlResponse(200, doc);
    expect(res.headers).toMatchObject({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'same-origin',
      'Content-Security-Policy':
        "default-src 'none'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    });
    expect(res.body).toBe(doc.text);
  });

  it('lets a page replace single CSP directives', () => {
    const res = htmlResponse(200, doc, { csp: { 'form-action': "'self' http://127.0.0.1:9999" } });
    expect(res.headers['Content-Security-Policy']).toContain("form-action 'self' http://127.0.0.1:9999;");
    expect(res.headers['Content-Security-Policy']).toContain("frame-ancestors 'none'");
    expect(cspHeader({ 'script-src': "'self'" })).toContain("script-src 'self'");
  });

  it('redirects with 303 and no caching', () => {
    const res = redirect('/x/y', { 'Set-Cookie': 'a=b' });
    expect(res.status).toBe(303);
    expect(res.headers).toMatchObject({ Location: '/x/y', 'Set-Cookie': 'a=b', 'Cache-Control': 'no-store' });
  });
});

describe('parseForm', () => {
  it('reads a urlencoded body', () => {
    expect({ ...parseForm(Buffer.from('a=1&b=two+words&c=%3Cx%3E&__proto__=p')) }).toEqual({
      a: '1',
      b: 'two words',
      c: '<x>',
      ['__proto__']: 'p',
    });
  });
  it('refuses a key given twice, naming it', () => {
    expect(() => parseForm('csrf=a&csrf=b')).toThrow(FormError);
    expect(() => parseForm('csrf=a&csrf=b')).toThrow('`csrf`');
  });
});

describe('/assets', () => {
  it('serves the stylesheet with a long cache lifetime, 304 on a matching ETag, 404 otherwise', async () => {
    const env = await inProcess({ fixtures: [] });
    try {
      const app = new App({ db: env.db, routes: [assetRoutes()] });
      const res = await sendJson(app, { url: STYLESHEET_HREF });
      expect(res.status).toBe(200);
      expect(res.headers['Content-Type']).toBe('text/css; charset=utf-8');
      expect(res.headers['Cache-Control']).toBe('public, max-age=31536000, immutable');
      expect(res.body).toContain('font-family');
      expect(res.body).not.toMatch(/url\(|@import|https?:/);
      const again = await sendJson(app, { url: '/assets/wcm.css', headers: { 'if-none-match': res.headers.ETag } });
      expect(again.status).toBe(304);
      for (const url of ['/assets/nope.css', '/assets/', '/assets/__proto__', '/assets/wcm.css/x'])
        expect((await sendJson(app, { url })).status, url).toBe(404);
      expect((await sendJson(app, { url: '/assets/wcm.css', method: 'POST' })).status).toBe(405);
    } finally {
      await env.close();
    }
  });
});
