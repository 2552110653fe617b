import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface StubRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Stub {
  url: string;
  /** Base URL ending in /v1. */
  base: string;
  requests: StubRequest[];
  close(): Promise<void>;
}

/**
 * A tiny HTTP server on a free loopback port that answers with `reply` (for what our own server
 * does not do on demand: 429 storms, 5xx, slow answers). Records every request.
 */
export async function httpStub(
  reply: (req: StubRequest, n: number) => { status: number; headers?: Record<string, string>; body?: unknown },
): Promise<Stub> {
  const requests: StubRequest[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const r: StubRequest = { method: req.method!, url: req.url!, headers: req.headers, body, at: Date.now() };
      requests.push(r);
      const out = reply(r, requests.length);
      const text = out.body === undefined ? '' : typeof out.body === 'string' ? out.body : JSON.stringify(out.body);
      res.writeHead(out.status, {
        'content-type': typeof out.body === 'string' ? 'text/plain' : 'application/json',
        ...out.headers,
      });
      res.end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    base: `${url}/v1`,
    requests,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A CONNECT proxy (what undici's proxy agent speaks) that counts the tunnels it opened. */
export async function connectProxy(): Promise<{ url: string; tunnels: string[]; close(): Promise<void> }> {
  const tunnels: string[] = [];
  const server = http.createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    tunnels.push(req.url!);
    const [host, port] = req.url!.split(':');
    const upstream = net.connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A port nothing listens on (bound then released). */
export async function deadPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

export const problem = (status: number, code: string, extra: Record<string, unknown> = {}) => ({
  type: `urn:wcm:problem:${code}`,
  title: code,
  status,
  code,
  detail: `stub answered ${status}`,
  resolution: 'stub resolution',
  instance: '/v1/x',
  request_id: 'req_stub',
  errors: {},
  ...extra,
});
