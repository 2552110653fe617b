import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { App } from './app.js';
import { newRequestId, requestIdFor } from './ids.js';
import { ProblemError } from './problems.js';
import { MAX_BODY_BYTES } from './request.js';
import { problemResponse, type AppResponse } from './response.js';

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

/**
 * Send buffers for bodies given as parts (list pages), reused once a response has been written:
 * a fresh 24 KB buffer per page made V8 collect garbage for its external memory every few
 * milliseconds. A buffer goes back only after `finish` (the socket write completed); a response
 * that fails midway just leaves its buffer to the garbage collector.
 */
const SEND_BUFFER_BYTES = 64 * 1024;
const SEND_BUFFERS_KEPT = 64;
const sendBuffers: Buffer[] = [];

function send(res: http.ServerResponse, r: AppResponse, head: boolean): void {
  // An injected fault (the emulator's `reset: true`): the client sees the connection drop.
  if (r.drop) {
    res.socket?.destroy();
    return;
  }
  if (r.stream) {
    res.writeHead(r.status, r.headers);
    if (head) res.end();
    else r.stream(res);
    return;
  }
  const parts = r.parts;
  if (!parts) {
    // The response's own headers object (built for this response, never shared) takes the length.
    const headers = r.headers as Record<string, string | number>;
    headers['Content-Length'] = Buffer.byteLength(r.body);
    res.writeHead(r.status, headers);
    res.end(head ? undefined : r.body);
    return;
  }
  let length = 0;
  for (const p of parts) length += p.length;
  res.writeHead(r.status, { ...r.headers, 'Content-Length': length });
  if (head) {
    res.end();
    return;
  }
  if (length > SEND_BUFFER_BYTES) {
    res.end(Buffer.concat(parts as Buffer[], length));
    return;
  }
  const buf = sendBuffers.pop() ?? Buffer.allocUnsafeSlow(SEND_BUFFER_BYTES);
  let at = 0;
  for (const p of parts) at += p.copy(buf, at);
  res.end(buf.subarray(0, length), () => {
    if (sendBuffers.length < SEND_BUFFERS_KEPT) sendBuffers.push(buf);
  });
}

/**
 * Answers 413 before the body is read, then closes with a lingering close (below) so the client
 * actually receives it. A client that keeps sending is cut off after LINGER_MS.
 */
function tooLarge(req: http.IncomingMessage, res: http.ServerResponse): void {
  const p = new ProblemError('payload_too_large', {
    detail: `The body is larger than ${MAX_BODY_BYTES} bytes (1 MiB); it was not read.`,
  });
  const { body, headers } = problemResponse(
    p,
    (req.url ?? '/').split('?')[0],
    requestIdFor(req.headers['x-request-id']),
  );
  res.writeHead(413, { ...headers, 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  // Lingering close. Closing a socket that still holds unread request bytes makes the kernel send
  // RST, and the RST can make the client drop the 413 before reading it (seen on loopback in about
  // 1 run in 20). So: end our side once the answer is out, keep reading and discarding what the
  // client still sends for a moment, then close. The body is never buffered either way.
  const sock = req.socket;
  sock.destroySoon = () => {
    sock.end();
    req.resume();
    sock.resume();
    const timer = setTimeout(() => sock.destroy(), LINGER_MS);
    timer.unref();
    sock.once('close', () => clearTimeout(timer));
  };
  res.end(body);
}

/** While closing: how often connections that fell idle are closed. */
const IDLE_SWEEP_MS = 50;

/** How long a refused upload may keep sending (into the void) after its 413, before the socket is cut. */
const LINGER_MS = 2000;

/**
 * Requests node's parser refuses before any handler runs (bad bytes, oversized headers, a client too
 * slow to send its request) still get a problem+json, not node's bare `400 Bad Request`.
 */
function clientError(err: NodeJS.ErrnoException, socket: Socket): void {
  const httpMessage = (socket as Socket & { _httpMessage?: http.ServerResponse })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const p =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new ProblemError('request_timeout', { detail: 'The request was not received in time.' })
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? new ProblemError('headers_too_large', { detail: 'The request headers are too large.' })
        : new ProblemError('bad_request', { detail: 'The request is not well-formed HTTP/1.1.' });
  const { status, headers, body } = problemResponse(p, '/', newRequestId());
  const lines = Object.entries({
    ...headers,
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  }).map(([k, v]) => `${k}: ${v}\r\n`);
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n${lines.join('')}\r\n${body}`);
}

/**
 * What node's parser lets through but HTTP/1.1 framing forbids (RFC 9112 §3.2): a request with two
 * `Host` lines (node keeps the first and drops the second, so the allow-list would judge only one of
 * them), and an HTTP/1.1 request without `Host` (node's own answer to that is a bare 400, so its check
 * is turned off and made here). Either is a 400 problem+json, and the connection is closed.
 */
function framingProblem(req: http.IncomingMessage): ProblemError | null {
  if (req.headers.host === undefined) {
    if (req.httpVersion !== '1.1') return null;
    return new ProblemError('bad_request', { detail: 'An HTTP/1.1 request must carry a `Host` header.' });
  }
  const raw = req.rawHeaders;
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 4 && raw[i].toLowerCase() === 'host') hosts++;
  if (hosts < 2) return null;
  return new ProblemError('bad_request', { detail: 'The request carries more than one `Host` header.' });
}

function refuseFraming(req: http.IncomingMessage, res: http.ServerResponse, p: ProblemError): void {
  const { status, headers, body } = problemResponse(p, '/', requestIdFor(req.headers['x-request-id']));
  res.shouldKeepAlive = false;
  res.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  res.end(body);
  req.resume();
}

/** Serves an App on node:http. The body limit is enforced while reading, never after buffering. */
export function listen(app: App, options: HttpServerOptions = {}): Promise<RunningServer> {
  let closing = false;
  const headersTimeout = options.headersTimeout ?? 10_000;
  const requestTimeout = options.requestTimeout ?? 30_000;
  // Node checks these timeouts only every `connectionsCheckingInterval` (30 s by default), so a
  // short timeout needs a check at least as often as the timeout itself.
  const connectionsCheckingInterval = Math.max(
    100,
    Math.min(30_000, Math.floor(Math.min(headersTimeout, requestTimeout) / 4)),
  );
  const server = http.createServer({ connectionsCheckingInterval, requireHostHeader: false }, (req, res) => {
    const framing = framingProblem(req);
    if (framing) return refuseFraming(req, res, framing);
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
        // Keep the request flowing (and discarded, see `aborted`) so the lingering close can drain it.
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
          // One chunk (most requests) needs no copy: the buffer is this request's alone.
          body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks),
          remoteAddress: req.socket.remoteAddress,
        })
        .then(
          (r) => {
            // A request that was in flight when shutdown began: tell the client not to reuse the connection.
            if (closing) r.headers.Connection = 'close';
            if (!res.writableEnded && !res.destroyed) send(res, r, req.method === 'HEAD');
          },
          // App.handle is meant never to throw; if it does, a 500 beats an unhandled rejection killing the process.
          () => {
            if (res.writableEnded || res.destroyed) return;
            send(
              res,
              problemResponse(
                new ProblemError('internal_error', { detail: 'The server failed to handle this request.' }),
                '/',
                newRequestId(),
              ),
              false,
            );
          },
        )
        // If sending itself fails, drop this connection, never the process.
        .catch(() => res.destroy());
    });
  });
  server.on('clientError', clientError);
  server.headersTimeout = headersTimeout;
  server.requestTimeout = requestTimeout;
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
        // Answers given from now on say `Connection: close`, so each connection with a request in
        // flight closes after its answer. Connections that fall idle otherwise (an answer already
        // on its way when closing began) are swept while we wait. No per-request bookkeeping.
        close: () =>
          new Promise<void>((done) => {
            closing = true;
            const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
            // Give in-flight requests time to finish, then drop whatever is left.
            const timer = setTimeout(() => server.closeAllConnections(), 10_000);
            server.close(() => {
              clearInterval(sweep);
              clearTimeout(timer);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}
