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
  /** The unexpected error behind a 500 (App.fail), for the error log on its way out; never sent. */
  error?: unknown;
  /**
   * A list page assembled from cached items (splicedPage): its items and cursor, for a caller that
   * wraps the same page in another envelope (`/mcp`) without parsing `body`.
   */
  readonly page?: { items: readonly PageItem[]; nextCursor: string | null };
}

/** An item of a spliced page: its JSON, and the same JSON escaped as a string's content, as UTF-8. */
export interface PageItem {
  readonly bytes: Buffer;
  readonly quotedBytes: Buffer;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/** The headers every response carries. */
export function baseHeaders(requestId: string, type: string): Record<string, string> {
  return { 'Content-Type': type, 'X-Request-Id': requestId, 'X-Content-Type-Options': 'nosniff' };
}

export function jsonResponse(
  status: number,
  body: unknown,
  requestId: string,
  headers: Record<string, string> = {},
): AppResponse {
  const all = baseHeaders(requestId, JSON_TYPE);
  for (const k in headers) all[k] = headers[k];
  return { status, headers: all, body: JSON.stringify(body) };
}

/** The one shape of an error answer: problem+json with its own headers (Allow, Retry-After, …). */
export function problemResponse(p: ProblemError, path: string, requestId: string): AppResponse {
  return {
    status: p.status,
    headers: { ...baseHeaders(requestId, PROBLEM_TYPE), ...p.headers },
    body: JSON.stringify(problemBody(p, path, requestId)),
  };
}

/**
 * A response whose body exists as byte parts; the string is built only if someone asks for it.
 * A class, not an object of closures: it is made for every list page, and /mcp makes two.
 */
class PartsResponse implements AppResponse {
  private text: string | undefined;
  /** Set once `body` or `parts` is given a new value: the body is then no longer the page, nor made by makeParts. */
  private replaced = false;
  constructor(
    public status: number,
    public headers: Record<string, string>,
    private raw: readonly Buffer[] | undefined,
  ) {}

  /** The parts, when the subclass makes them on first use. */
  protected makeParts(): readonly Buffer[] | undefined {
    return undefined;
  }

  /** The page this body is, when it is one (see AppResponse.page). */
  protected pageOf(): AppResponse['page'] {
    return undefined;
  }

  get parts(): readonly Buffer[] | undefined {
    return this.replaced ? this.raw : (this.raw ??= this.makeParts());
  }

  set parts(v: readonly Buffer[] | undefined) {
    this.raw = v;
    this.text = undefined;
    this.replaced = true;
  }

  get body(): string {
    return (this.text ??= Buffer.concat(this.parts ?? []).toString('utf8'));
  }

  set body(v: string) {
    this.text = v;
    this.raw = undefined;
    this.replaced = true;
  }

  get page(): AppResponse['page'] {
    return this.replaced ? undefined : this.pageOf();
  }
}

export function partsResponse(status: number, headers: Record<string, string>, parts: readonly Buffer[]): AppResponse {
  return new PartsResponse(status, headers, parts);
}

const COMMA = Buffer.from(',');
const PAGE_HEAD = Buffer.from('{"data":[');

/**
 * A list page whose items were serialized once per record (paging.ts cachedJson): their bytes
 * spliced in, when the parts are asked for (the HTTP adapter asks; /mcp reads `page` instead).
 */
class SplicedPage extends PartsResponse {
  constructor(
    status: number,
    headers: Record<string, string>,
    private readonly items: readonly PageItem[],
    private readonly meta: { request_id: string; next_cursor: string | null },
  ) {
    super(status, headers, undefined);
  }

  protected override makeParts(): readonly Buffer[] {
    const { items } = this;
    const out = new Array<Buffer>(2 * items.length + 1);
    for (let i = 0; i < items.length; i++) {
      out[2 * i] = i ? COMMA : PAGE_HEAD;
      out[2 * i + 1] = items[i].bytes;
    }
    out[2 * items.length] = Buffer.from(`],"meta":${JSON.stringify(this.meta)}}`);
    return out;
  }

  protected override pageOf(): AppResponse['page'] {
    return { items: this.items, nextCursor: this.meta.next_cursor };
  }
}

export function splicedPage(
  status: number,
  requestId: string,
  items: readonly PageItem[],
  meta: { request_id: string; next_cursor: string | null },
): AppResponse {
  return new SplicedPage(status, baseHeaders(requestId, JSON_TYPE), items, meta);
}
