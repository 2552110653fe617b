// HTTP/1.1 framing the allow-list depends on (issue 47, item 14), over a raw TCP socket to the real
// server: node drops a second `Host` line before any handler sees it, routes an absolute-form target by
// its path alone, and answers a request without `Host` with a bare 400 of its own.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../support/problem.js';
import { demo, onPort } from '../support/server.js';

let server: Awaited<ReturnType<typeof onPort>>;
let port: number;
beforeAll(async () => {
  server = await onPort();
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server.close();
});

/** Writes `head` on a fresh socket and reads until the server closes it, or one whole response arrived. */
function exchange(
  head: string,
): Promise<{ status: number; headers: Record<string, string>; body: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let raw = '';
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`no complete response: ${raw.slice(0, 300)}`));
    }, 10_000);
    const done = (closed: boolean) => {
      const end = raw.indexOf('\r\n\r\n');
      if (end === -1) return false;
      const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
      const body = raw.slice(end + 4);
      if (!closed && Buffer.byteLength(body) < Number(headers['content-length'] ?? 0)) return false;
      clearTimeout(timer);
      sock.destroy();
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body, closed });
      return true;
    };
    sock.on('data', (d) => {
      raw += d.toString('latin1');
      if (/\r\nconnection: close\r\n/i.test(raw.slice(0, raw.indexOf('\r\n\r\n') + 2))) return; // wait for the close
      done(false);
    });
    sock.on('end', () => done(true) || reject(new Error(`closed without a response: ${raw.slice(0, 300)}`)));
    sock.on('error', reject);
    sock.write(head);
  });
}

const host = () => `127.0.0.1:${port}`;
const bearer = `Authorization: Bearer ${demo.owner}\r\n`;

describe('HTTP framing before the Host allow-list', () => {
  it('an allowed request over the same socket helper is 200 (the baseline)', async () => {
    const res = await exchange(`GET /v1/me HTTP/1.1\r\nHost: ${host()}\r\n${bearer}Connection: close\r\n\r\n`);
    expect(res.status).toBe(200);
  });

  it.each([
    ['allowed, then foreign', () => [host(), 'evil.example']],
    ['foreign, then allowed', () => ['evil.example', host()]],
    ['the same twice', () => [host(), host()]],
  ])('two Host lines (%s) are 400 problem+json, and the connection is closed', async (_, hosts) => {
    const lines = hosts()
      .map((h) => `Host: ${h}\r\n`)
      .join('');
    const res = await exchange(`GET /v1/me HTTP/1.1\r\n${lines}${bearer}\r\n`);
    const p = expectProblem({ status: res.status, headers: res.headers, body: res.body }, 400, 'bad_request', '/');
    expect(p.detail).toMatch(/more than one `Host`/);
    expect(res.headers.connection).toBe('close');
    expect(res.closed).toBe(true);
  });

  it('an absolute-form target naming a foreign host is 421 host_not_allowed, whatever Host says', async () => {
    for (const head of [
      `GET http://evil.example/v1/me HTTP/1.1\r\nHost: ${host()}\r\n${bearer}Connection: close\r\n\r\n`,
      `GET http://evil.example/v1/me HTTP/1.1\r\nHost: evil.example\r\n${bearer}Connection: close\r\n\r\n`,
      `GET http://evil.example:${port}/v1/me HTTP/1.0\r\n${bearer}\r\n`,
    ]) {
      const res = await exchange(head);
      expectProblem({ status: res.status, headers: res.headers, body: res.body }, 421, 'host_not_allowed');
    }
  });

  it('an absolute-form target naming an allowed host that Host contradicts is 421; agreeing, it is served', async () => {
    const other = await exchange(
      `GET http://localhost:${port}/v1/me HTTP/1.1\r\nHost: ${host()}\r\n${bearer}Connection: close\r\n\r\n`,
    );
    const p = expectProblem(
      { status: other.status, headers: other.headers, body: other.body },
      421,
      'host_not_allowed',
    );
    expect(p.detail).toMatch(/another host than the `Host` header/);
    const same = await exchange(
      `GET http://${host()}/v1/me HTTP/1.1\r\nHost: ${host()}\r\n${bearer}Connection: close\r\n\r\n`,
    );
    expect(same.status).toBe(200);
  });

  it('an HTTP/1.1 request without Host is 400 problem+json (not a bare 400); HTTP/1.0 without Host is served', async () => {
    const res = await exchange(`GET /v1/me HTTP/1.1\r\n${bearer}\r\n`);
    const p = expectProblem({ status: res.status, headers: res.headers, body: res.body }, 400, 'bad_request', '/');
    expect(p.detail).toMatch(/must carry a `Host`/);
    expect(res.closed).toBe(true);
    const old = await exchange(`GET /v1/me HTTP/1.0\r\n${bearer}\r\n`);
    expect(old.status).toBe(200);
  });
});
