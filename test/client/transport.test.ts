import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { proxyFor, transportFor } from '../../src/client/transport.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** A server that counts its connections and answers with `handler`. */
async function server(handler: http.RequestListener): Promise<{ base: string; connections: () => number }> {
  let connections = 0;
  const s = http.createServer(handler);
  s.on('connection', () => void connections++);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  closers.push(
    () =>
      new Promise((r) => {
        s.closeAllConnections();
        s.close(() => r());
      }),
  );
  return { base: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, connections: () => connections };
}

describe("proxyFor: which requests go through a proxy (as undici's EnvHttpProxyAgent decides)", () => {
  const P = 'http://proxy.test:3128';
  const S = 'http://secure-proxy.test:3128';
  it.each([
    ['no proxy set', 'http://api.test/v1', {}, undefined],
    ['HTTP_PROXY for http', 'http://api.test/v1', { HTTP_PROXY: P }, P],
    ['http_proxy (lower case)', 'http://api.test/v1', { http_proxy: P }, P],
    ['HTTP_PROXY for https too, when HTTPS_PROXY is unset', 'https://api.test/v1', { HTTP_PROXY: P }, P],
    ['HTTPS_PROXY for https', 'https://api.test/v1', { HTTP_PROXY: P, HTTPS_PROXY: S }, S],
    ['HTTPS_PROXY alone: http goes direct', 'http://api.test/v1', { HTTPS_PROXY: S }, undefined],
    ['NO_PROXY host', 'http://api.test/v1', { HTTP_PROXY: P, NO_PROXY: 'other.test, api.test' }, undefined],
    ['NO_PROXY is case-insensitive', 'http://API.test/v1', { HTTP_PROXY: P, no_proxy: 'api.TEST' }, undefined],
    ['NO_PROXY domain covers subdomains', 'http://eu.api.test/v1', { HTTP_PROXY: P, NO_PROXY: 'api.test' }, undefined],
    ['NO_PROXY .domain and *.domain', 'http://eu.api.test/v1', { HTTP_PROXY: P, NO_PROXY: '*.api.test' }, undefined],
    ['NO_PROXY suffix must be a whole label', 'http://notapi.test/v1', { HTTP_PROXY: P, NO_PROXY: 'api.test' }, P],
    [
      'NO_PROXY host:port, same port',
      'http://127.0.0.1:4010/v1',
      { HTTP_PROXY: P, NO_PROXY: '127.0.0.1:4010' },
      undefined,
    ],
    ['NO_PROXY host:port, other port', 'http://127.0.0.1:4011/v1', { HTTP_PROXY: P, NO_PROXY: '127.0.0.1:4010' }, P],
    [
      'NO_PROXY host:port with the default port',
      'https://api.test/v1',
      { HTTP_PROXY: P, NO_PROXY: 'api.test:443' },
      undefined,
    ],
    ['NO_PROXY *', 'http://api.test/v1', { HTTP_PROXY: P, NO_PROXY: '*' }, undefined],
    ['NO_PROXY IPv6', 'http://[::1]:4010/v1', { HTTP_PROXY: P, NO_PROXY: '[::1]' }, undefined],
  ])('%s', (_name, url, env, expected) => {
    expect(proxyFor(new URL(url), env)).toBe(expected);
  });
});

describe('the direct transport (node:http)', () => {
  it('keeps one connection alive across requests, and sends Content-Length for a UTF-8 body', async () => {
    const bodies: Array<{ length?: string; body: string }> = [];
    const s = await server((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        bodies.push({ length: req.headers['content-length'], body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":"é"}');
      });
    });
    const send = await transportFor(new URL(s.base), {});
    const url = new URL(`${s.base}/v1/x`);
    const a = await send({ method: 'GET', url, headers: {}, timeoutMs: 5000 });
    const b = await send({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      body: '{"name":"Zoë"}',
      timeoutMs: 5000,
    });
    expect([a.status, a.text, b.text]).toEqual([200, '{"ok":"é"}', '{"ok":"é"}']);
    expect(bodies).toEqual([
      { length: undefined, body: '' },
      { length: '15', body: '{"name":"Zoë"}' },
    ]);
    expect(s.connections()).toBe(1);
  });

  it('joins repeated response headers with ", " and lower-cases their names', async () => {
    const s = await server((_req, res) => {
      res.setHeader('X-Thing', ['a', 'b']);
      res.setHeader('Set-Cookie', ['c=1', 'd=2']);
      res.end('');
    });
    const send = await transportFor(new URL(s.base), {});
    const r = await send({ method: 'GET', url: new URL(`${s.base}/x`), headers: {}, timeoutMs: 5000 });
    expect(r.headers['x-thing']).toBe('a, b');
    expect(r.headers['set-cookie']).toBe('c=1, d=2');
  });

  it('a body that stops arriving fails with a body timeout', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
    });
    const send = await transportFor(new URL(s.base), {});
    const err = await send({ method: 'GET', url: new URL(`${s.base}/x`), headers: {}, timeoutMs: 200 }).catch((e) => e);
    expect(err).toMatchObject({ code: 'UND_ERR_BODY_TIMEOUT', message: 'Body Timeout Error' });
  });

  it('headers that never come fail with a headers timeout, also on a reused connection', async () => {
    let n = 0;
    const s = await server((_req, res) => {
      if (++n === 1) res.end('first');
    });
    const send = await transportFor(new URL(s.base), {});
    const url = new URL(`${s.base}/x`);
    expect((await send({ method: 'GET', url, headers: {}, timeoutMs: 5000 })).text).toBe('first');
    const err = await send({ method: 'GET', url, headers: {}, timeoutMs: 200 }).catch((e) => e);
    expect(err).toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT', message: 'Headers Timeout Error' });
    expect(s.connections()).toBe(1);
  });
});
