import type { Agent as HttpAgent, IncomingMessage } from 'node:http';

/** One HTTP exchange as the client sees it: a whole request out, a whole response back. */
export interface TransportRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
  /** Longest wait for the response headers, and for each piece of the body after them. */
  timeoutMs: number;
  /** Largest response body read; past it the response is cut off and the request fails (BodyTooLargeError). */
  maxBytes?: number;
}

/** The default bound on a response body: far above any page or document wcm reads (a page of 100 records is well under 1 MiB). */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** A response body past `maxBytes`: a server streaming without end would otherwise fill the memory. */
export class BodyTooLargeError extends Error {
  readonly code = 'WCM_BODY_TOO_LARGE';
  constructor(readonly maxBytes: number) {
    super(`the response body passed ${maxBytes} bytes`);
  }
}

export interface TransportResponse {
  status: number;
  /** Lower-case names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  text: string;
}

/**
 * Sends one request. Network failures reject with an Error carrying `code` (ECONNREFUSED,
 * UND_ERR_HEADERS_TIMEOUT, …); any HTTP status resolves.
 */
export type Transport = (req: TransportRequest) => Promise<TransportResponse>;

const CONNECT_TIMEOUT_MS = 10_000;
const KEEP_ALIVE_MS = 10_000;

/** undici's codes and messages for the three timeouts, so errors read the same through either transport. */
function timeoutError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The proxy URL for `url` under HTTPS_PROXY / HTTP_PROXY / NO_PROXY, or undefined to go direct. */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv): string | undefined {
  const httpProxy = env.HTTP_PROXY || env.http_proxy;
  const httpsProxy = env.HTTPS_PROXY || env.https_proxy;
  // As undici's EnvHttpProxyAgent: https uses HTTPS_PROXY, else HTTP_PROXY; http uses HTTP_PROXY only.
  const proxy = url.protocol === 'https:' ? httpsProxy || httpProxy : httpProxy;
  if (!proxy) return undefined;
  return noProxyExcludes(url, env.NO_PROXY ?? env.no_proxy ?? '') ? undefined : proxy;
}

/** NO_PROXY matching exactly as undici 7's EnvHttpProxyAgent does it (host, `.suffix`, `*.suffix`, `host:port`, `*`). */
function noProxyExcludes(url: URL, noProxy: string): boolean {
  if (noProxy === '*') return true;
  // url.host keeps IPv6 brackets; strip only the port.
  const hostname = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || (url.protocol === 'https:' ? 443 : 80);
  for (const entry of noProxy.split(/[,\s]/)) {
    if (!entry) continue;
    const parsed = entry.match(/^(.+):(\d+)$/);
    const host = (parsed ? parsed[1] : entry).replace(/^\*?\./, '').toLowerCase();
    const entryPort = parsed ? Number.parseInt(parsed[2], 10) : 0;
    if (entryPort && entryPort !== port) continue;
    if (hostname === host || hostname.endsWith(`.${host}`)) return true;
  }
  return false;
}

const transports = new Map<string, Promise<Transport>>();

/**
 * The transport for `url`: node:http / node:https with one keep-alive agent per process when the
 * connection is direct; undici's EnvHttpProxyAgent (loaded only then) when a proxy applies, since
 * node:http cannot tunnel through a proxy by itself.
 */
export function transportFor(url: URL, env: NodeJS.ProcessEnv): Promise<Transport> {
  const proxy = proxyFor(url, env);
  const key = proxy ? `proxy ${url.protocol} ${proxy}` : url.protocol;
  let t = transports.get(key);
  if (!t) {
    t = proxy
      ? undiciTransport(url.protocol === 'https:' ? { httpsProxy: proxy } : { httpProxy: proxy })
      : nodeTransport(url.protocol);
    transports.set(key, t);
    // A failed load is not cached: the next request tries again.
    t.catch(() => transports.delete(key));
  }
  return t;
}

async function nodeTransport(protocol: string): Promise<Transport> {
  const mod = protocol === 'https:' ? await import('node:https') : await import('node:http');
  // `timeout` bounds how long an idle socket is kept; the server's `Keep-Alive: timeout=N` hint
  // shortens it (Node applies it), so a socket the server is about to close is not reused.
  const agent: HttpAgent = new mod.Agent({ keepAlive: true, maxSockets: 16, timeout: KEEP_ALIVE_MS });
  return (req) =>
    new Promise<TransportResponse>((resolve, reject) => {
      const headers: Record<string, string | number> = { ...req.headers };
      if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body);
      let timer: NodeJS.Timeout | undefined;
      // What a timeout destroys: the request until the response starts, then the response.
      let current: { destroy(err: Error): unknown } | undefined;
      const arm = (ms: number, code: string, message: string) => {
        clearTimeout(timer);
        timer = setTimeout(() => current?.destroy(timeoutError(code, message)), ms);
      };
      const fail = (err: Error) => {
        clearTimeout(timer);
        reject(err);
      };
      const r = mod.request(req.url, { method: req.method, headers, agent }, (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        const max = req.maxBytes ?? MAX_RESPONSE_BYTES;
        let bytes = 0;
        current = res;
        arm(req.timeoutMs, 'UND_ERR_BODY_TIMEOUT', 'Body Timeout Error');
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > max) {
            chunks.length = 0;
            res.destroy(new BodyTooLargeError(max));
            return;
          }
          chunks.push(chunk);
          arm(req.timeoutMs, 'UND_ERR_BODY_TIMEOUT', 'Body Timeout Error');
        });
        res.on('error', fail);
        res.on('end', () => {
          clearTimeout(timer);
          const out: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headersDistinct)) if (v) out[k] = v.join(', ');
          resolve({ status: res.statusCode ?? 0, headers: out, text: Buffer.concat(chunks).toString('utf8') });
        });
      });
      current = r;
      r.on('error', fail);
      r.on('socket', (socket) => {
        if (!socket.connecting) return;
        arm(CONNECT_TIMEOUT_MS, 'UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error');
        socket.once('connect', () => arm(req.timeoutMs, 'UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error'));
      });
      // A reused keep-alive socket is already connected: the headers clock starts now.
      arm(req.timeoutMs, 'UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error');
      r.end(req.body);
    });
}

async function undiciTransport(proxy: { httpProxy?: string; httpsProxy?: string }): Promise<Transport> {
  const { EnvHttpProxyAgent, request } = await import('undici');
  // The proxy for this URL's scheme is already chosen and NO_PROXY already applied (proxyFor):
  // empty strings keep undici from reading process.env behind the caller's back.
  const dispatcher = new EnvHttpProxyAgent({
    httpProxy: proxy.httpProxy ?? '',
    httpsProxy: proxy.httpsProxy ?? '',
    noProxy: '',
    keepAliveTimeout: KEEP_ALIVE_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
  });
  return async (req) => {
    const res = await request(req.url, {
      method: req.method as 'GET',
      headers: req.headers,
      body: req.body,
      dispatcher,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
    });
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers))
      if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
    const max = req.maxBytes ?? MAX_RESPONSE_BYTES;
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > max) {
        res.body.destroy();
        throw new BodyTooLargeError(max);
      }
      chunks.push(chunk);
    }
    return { status: res.statusCode, headers, text: Buffer.concat(chunks).toString('utf8') };
  };
}

/**
 * A fetch() response's body as text, read up to `max` bytes (the same bound as the client's): the
 * control plane and OAuth discovery use fetch, and a server streaming without end must not fill
 * the memory there either. Past it the body is cancelled and BodyTooLargeError thrown.
 */
export async function boundedText(res: Response, max = MAX_RESPONSE_BYTES): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > max) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLargeError(max);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
