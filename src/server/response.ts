/** Building a response: JSON, list pages spliced from cached bytes, and problem+json. */
import { ProblemError, problemBody } from './problems.js';

export interface AppResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /**
   * When set, `body` is exactly these buffers, concatenated, as UTF-8 (list pages are assembled
   * from cached bytes): the HTTP adapter sends them instead of encoding `body` again. Setting
   * `body` clears them.
   */
  parts?: readonly Buffer[];
  /**
   * When set, the HTTP adapter writes the status and headers and then hands the socket's response
   * to this function, which writes the body over time and ends it (Server-Sent Events). `body` is
   * then unused.
   */
  stream?(res: import('node:http').ServerResponse): void;
  /** Drop the connection instead of answering (an injected fault). */
  drop?: boolean;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/** The headers every response carries. */
export function baseHeaders(requestId: string, type: string): Record<string, string> {
  return { 'Content-Type': type, 'X-Request-Id': requestId, 'X-Content-Type-Options': 'nosniff' };
}

export function jsonResponse(status: number, body: unknown, requestId: string, headers: Record<string, string> = {}): AppResponse {
  const all = baseHeaders(requestId, JSON_TYPE);
  for (const k in headers) all[k] = headers[k];
  return { status, headers: all, body: JSON.stringify(body) };
}

/** The one shape of an error answer: problem+json with its own headers (Allow, Retry-After, …). */
export function problemResponse(p: ProblemError, path: string, requestId: string): AppResponse {
  return { status: p.status, headers: { ...baseHeaders(requestId, PROBLEM_TYPE), ...p.headers }, body: JSON.stringify(problemBody(p, path, requestId)) };
}

/** A response whose body exists as byte parts; the string is built only if someone asks for it. */
function partsResponse(status: number, headers: Record<string, string>, parts: readonly Buffer[]): AppResponse {
  let text: string | undefined;
  let raw: readonly Buffer[] | undefined = parts;
  return {
    status,
    headers,
    get body() {
      return (text ??= Buffer.concat(raw ?? []).toString('utf8'));
    },
    set body(v: string) {
      text = v;
      raw = undefined;
    },
    get parts() {
      return raw;
    },
    set parts(v: readonly Buffer[] | undefined) {
      raw = v;
      text = undefined;
    },
  };
}

const COMMA = Buffer.from(',');
const PAGE_HEAD = Buffer.from('{"data":[');

/** A list page whose items were serialized once per record (paging.ts cachedJson): their bytes spliced in. */
export function splicedPage(status: number, requestId: string, items: ReadonlyArray<{ bytes: Buffer }>, meta: object): AppResponse {
  const parts: Buffer[] = [PAGE_HEAD];
  for (let i = 0; i < items.length; i++) {
    if (i) parts.push(COMMA);
    parts.push(items[i].bytes);
  }
  parts.push(Buffer.from(`],"meta":${JSON.stringify(meta)}}`));
  return partsResponse(status, baseHeaders(requestId, JSON_TYPE), parts);
}
