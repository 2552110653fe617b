/** Reading a request: its target, headers, query and JSON body, before any operation sees it. */
import { ProblemError, validationFailed } from './problems.js';

export const MAX_BODY_BYTES = 1024 * 1024;
export const BASE_PATHS = ['/v1', '/api/v1'] as const;

/** A request as the dispatcher sees it: already read, with no socket attached. */
export interface AppRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body?: Buffer | string;
  remoteAddress?: string;
}

/** What a handler may know about the request beyond its validated parts. */
export interface RequestInfo {
  id: string;
  method: string;
  /** Full path as received, e.g. `/api/v1/workspaces/…/lists`. */
  path: string;
  /** The server's own origin (never the Host header) and the base path the caller used: `…/v1` or `…/api/v1`. */
  baseUrl: string;
  origin: string;
  headers: Record<string, string | string[] | undefined>;
  remoteAddress: string;
  rawBody: Buffer;
  /** Set by `/mcp` for its tool calls (`wcm-mcp`), never from the wire: the audience OAuth tokens must have. */
  audience?: string;
}

export const header = (h: AppRequest['headers'], name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * Path segments that need no normalizing (no dot segments, no percent-escapes, nothing URL would
 * encode), and a query of characters URL keeps as they are.
 */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_~-][A-Za-z0-9_~.-]*)*\/?$/;
const PLAIN_QUERY = /^[A-Za-z0-9_~.\-=&%+,:@/?!$*();]*$/;

/**
 * The pathname and search `new URL` would give for an origin-form target in the plain form most
 * clients send, without parsing a URL per request; null for anything else (the caller then uses URL).
 */
export function plainTarget(target: string): { pathname: string; search: string } | null {
  const q = target.indexOf('?');
  const pathname = q === -1 ? target : target.slice(0, q);
  if (!pathname.startsWith('/') || !PLAIN_PATH.test(pathname)) return null;
  if (q === -1) return { pathname, search: '' };
  const query = target.slice(q + 1);
  if (!PLAIN_QUERY.test(query)) return null;
  return { pathname, search: query ? `?${query}` : '' };
}

const BASE_PREFIXES = BASE_PATHS.map((b) => [b, `${b}/`] as const);
/** The API base path (`/v1`, `/api/v1`) a path is under, if any. */
export function basePathOf(pathname: string): string | undefined {
  for (const [b, prefix] of BASE_PREFIXES) if (pathname === b || pathname.startsWith(prefix)) return b;
  return undefined;
}

const NO_QUERY: Record<string, string> = Object.freeze(Object.create(null));

/**
 * The query as name → value, with no prototype (`toString` or `constructor` are names like any
 * other, `__proto__` an own key), and the names given more than once. Most requests have no query:
 * they share one empty, frozen object.
 */
export function parseQuery(search: string): {
  query: Record<string, string>;
  repeated: Record<string, string[]> | null;
} {
  if (search.length <= 1) return { query: NO_QUERY, repeated: null };
  const query: Record<string, string> = Object.create(null);
  let repeated: Record<string, string[]> | null = null;
  for (const [k, v] of new URLSearchParams(search)) {
    if (Object.hasOwn(query, k))
      (repeated ??= Object.create(null) as Record<string, string[]>)[k] = ['Given more than once.'];
    query[k] = v;
  }
  return { query, repeated };
}

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;.*)?$/i;

/**
 * The request body as a JSON object: no body at all is `{}` (optional bodies accept it, PATCH
 * bodies refuse it later with 422); anything but `application/json` is 415; bad UTF-8 or JSON is 400.
 */
export function readJsonBody(
  raw: Buffer,
  contentType: string | undefined,
  optional?: boolean,
): Record<string, unknown> {
  // The HTTP adapter stops reading at the limit; this covers callers that hand a body over directly.
  if (raw.length > MAX_BODY_BYTES)
    throw new ProblemError('payload_too_large', {
      detail: `The body is ${raw.length} bytes; the limit is ${MAX_BODY_BYTES} bytes (1 MiB).`,
    });
  let body: unknown;
  if (raw.length === 0 && !contentType) body = {};
  else {
    if (!contentType || !JSON_TYPE.test(contentType)) {
      throw new ProblemError('unsupported_media_type', {
        detail: `The body must be sent as \`application/json\`; received ${contentType ? `\`${contentType}\`` : 'no Content-Type'}.`,
      });
    }
    body = parseJson(raw, optional);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw validationFailed({ '(body)': ['The body must be a JSON object.'] });
  }
  return body as Record<string, unknown>;
}

/**
 * Whether JSON text nests arrays and objects deeper than `max`, by one pass over its bytes (no
 * parse). Parsing 10,000 nested arrays is fine; the recursive walks after it (serializing, schema
 * checks) overflow the stack, so such a body is refused before any of them runs.
 */
export function nestedDeeperThan(raw: Buffer, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Strict UTF-8 (a leading BOM is dropped). Not streaming, so one decoder serves every request. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

function parseJson(raw: Buffer, optional?: boolean): unknown {
  if (raw.length === 0) {
    if (optional) return {};
    throw new ProblemError('invalid_json', { detail: 'The body is empty; send a JSON object.' });
  }
  let text: string;
  try {
    text = UTF8.decode(raw);
  } catch {
    throw new ProblemError('invalid_json', { detail: 'The body is not valid UTF-8.' });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ProblemError('invalid_json', { detail: `The body is not valid JSON: ${(err as Error).message}.` });
  }
}
