import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, MAX_BODY_BYTES, newRequestId, type AppResponse } from './app.js';
import { ProblemError, problemBody } from './problems.js';

export interface HttpServerOptions {
  host?: string;
  port?: number;
  /** Bounds for clients that send slowly (ms). */
  headersTimeout?: number;
  requestTimeout?: number;
}

export interface RunningServer {
  server: http.Server;
  url: string;
  port: number;
  /** Stops accepting, lets in-flight requests finish, closes idle connections. */
  close(): Promise<void>;
}

function send(res: http.ServerResponse, r: AppResponse, head: boolean): void {
  res.writeHead(r.status, { ...r.headers, 'Content-Length': Buffer.byteLength(r.body) });
  res.end(head ? undefined : r.body);
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
/** After a 413, how much more of the body we read and throw away before dropping the connection. */
const DRAIN_BYTES = 8 * MAX_BODY_BYTES;
const DRAIN_MS = 5_000;

/**
 * Answers 413 before the body is read, then keeps reading and discarding what the client is still
 * sending: closing a socket with unread bytes makes the kernel send RST, and the client would often
 * lose this response. A client that keeps sending past the drain budget is cut off.
 */
function tooLarge(req: http.IncomingMessage, res: http.ServerResponse): void {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : newRequestId();
  const p = new ProblemError('payload_too_large', { detail: `The body is larger than ${MAX_BODY_BYTES} bytes (1 MiB); it was not read.` });
  const body = JSON.stringify(problemBody(p, (req.url ?? '/').split('?')[0], id));
  res.writeHead(413, {
    'Content-Type': 'application/problem+json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': id,
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(body);
  let drained = 0;
  const cut = () => req.socket.destroy();
  const timer = setTimeout(cut, DRAIN_MS);
  timer.unref();
  req.removeAllListeners('data');
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_BYTES) cut();
  });
  req.once('end', () => clearTimeout(timer));
  req.once('close', () => clearTimeout(timer));
  req.resume();
}

/** Serves an App on node:http. The body limit is enforced while reading, never after buffering. */
export function listen(app: App, options: HttpServerOptions = {}): Promise<RunningServer> {
  let inFlight = 0;
  let closing = false;
  let idleResolve: (() => void) | null = null;
  const server = http.createServer((req, res) => {
    inFlight++;
    res.on('close', () => {
      inFlight--;
      if (closing && inFlight === 0) idleResolve?.();
    });
    if (closing) res.setHeader('Connection', 'close');
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_BODY_BYTES) return tooLarge(req, res);
    const chunks: Buffer[] = [];
    let size = 0;
    let aborted = false;
    req.on('data', (chunk: Buffer) => {
      if (aborted) return;
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        aborted = true;
        chunks.length = 0;
        tooLarge(req, res);
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () => {
      aborted = true;
    });
    req.on('end', () => {
      if (aborted) return;
      app
        .handle({
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          headers: req.headers,
          body: Buffer.concat(chunks),
          remoteAddress: req.socket.remoteAddress,
        })
        .then((r) => {
          // A request that was in flight when shutdown began: tell the client not to reuse the connection.
          if (closing) r.headers.Connection = 'close';
          if (!res.writableEnded && !res.destroyed) send(res, r, req.method === 'HEAD');
        })
        // `handle` never rejects; if sending fails anyway, drop this connection, never the process.
        .catch(() => res.destroy());
    });
  });
  server.headersTimeout = options.headersTimeout ?? 10_000;
  server.requestTimeout = options.requestTimeout ?? 30_000;
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4010, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      const addr = server.address() as AddressInfo;
      const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      resolve({
        server,
        port: addr.port,
        url: `http://${host}:${addr.port}/v1`,
        close: () =>
          new Promise<void>((done) => {
            closing = true;
            server.close(() => done());
            server.closeIdleConnections();
            const idle = inFlight === 0 ? Promise.resolve() : new Promise<void>((r) => (idleResolve = r));
            // Give in-flight requests time to finish, then drop whatever is left.
            const timer = setTimeout(() => server.closeAllConnections(), 10_000);
            void idle.then(() => {
              clearTimeout(timer);
              server.closeIdleConnections();
            });
          }),
      });
    });
  });
}
