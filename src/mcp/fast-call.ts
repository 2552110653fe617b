import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { callTool, toRequest } from './tool-call.js';
import type { Dispatch, ToolDef, ToolFilter, ToolRequest } from './tools.js';

/**
 * What a request dispatched in-process answered (`/mcp` on `wcm serve`): the status, the body, and,
 * for a list page the App assembled from cached items, those items and the cursor.
 */
export interface RawAnswer {
  status: number;
  /** The body (made from the page's bytes only when asked for). */
  text(): string;
  readonly page?: CachedPage;
}

/**
 * A list page as cached bytes: each item's JSON, and the same JSON escaped as a string's content.
 * Declared here, not imported, so `src/mcp` does not point up into `src/server` (the server's
 * spliced pages have this shape).
 */
export interface CachedPage {
  readonly items: readonly { readonly bytes: Buffer; readonly quotedBytes: Buffer }[];
  readonly nextCursor: string | null;
}

/**
 * A `tools/call` of an enabled tool, answered without building an SDK server and transport per
 * request (`/mcp` is stateless, and that set-up was most of a call's time): the JSON-RPC response
 * the SDK would send, as text or as byte parts, or null for anything else, which then goes through
 * the SDK. Only a single request whose transport checks (Accept, Content-Type, protocol version)
 * all pass is answered here.
 */
export async function fastToolCall(
  headers: { accept?: string; contentType?: string; protocolVersion?: string },
  body: unknown,
  tools: ToolDef[],
  filter: ToolFilter,
  dispatchRaw: (req: ToolRequest) => Promise<RawAnswer>,
): Promise<string | Buffer[] | null> {
  if (!headers.accept?.includes('application/json') || !headers.accept.includes('text/event-stream')) return null;
  if (!headers.contentType?.includes('application/json')) return null;
  if (headers.protocolVersion !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(headers.protocolVersion))
    return null;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const msg = body as {
    jsonrpc?: unknown;
    method?: unknown;
    id?: unknown;
    params?: { name?: unknown; arguments?: unknown };
  };
  if (
    msg.jsonrpc !== '2.0' ||
    msg.method !== 'tools/call' ||
    !(typeof msg.id === 'string' || (typeof msg.id === 'number' && Number.isInteger(msg.id)))
  )
    return null;
  const name = msg.params?.name;
  const args = msg.params?.arguments === undefined ? {} : msg.params.arguments;
  const tool = typeof name === 'string' ? tools.find((t) => t.name === name) : undefined;
  // Anything else (malformed params included) goes through the SDK and connectServer's check.
  if (!tool || !args || typeof args !== 'object' || Array.isArray(args)) return null;
  const id = JSON.stringify(msg.id);
  let raw: RawAnswer | undefined;
  // callTool below sends the request only if it was not sent already.
  const parsedAnswer = parsedDispatch(async (req) => (raw ??= await dispatchRaw(req)));
  if (tool.op.access !== 'public') {
    let req: ToolRequest | undefined;
    try {
      req = toRequest(tool.op, args as Record<string, unknown>, filter.defaultWorkspace);
    } catch {
      req = undefined; // callTool below words the argument error
    }
    if (req) {
      raw = await dispatchRaw(req);
      if (raw.status >= 200 && raw.status < 300) {
        // A list page of cached items: the answer is assembled from their cached bytes (the page
        // twice: escaped as text, then as structured content), nothing parsed or serialized.
        if (raw.page) return pageResult(raw.page, id);
        // Any other success of our own App is `{"data":…,"meta":{…}}` with meta last: its data is
        // spliced in as text.
        const env = splitEnvelope(raw.text());
        if (env) {
          const out = `{"data":${env.data},"next_cursor":${JSON.stringify(env.nextCursor)}}`;
          return `{"result":{"content":[{"type":"text","text":${JSON.stringify(out)}}],"structuredContent":${out}},"jsonrpc":"2.0","id":${id}}`;
        }
      }
    }
  }
  const result = await callTool(tool, args as Record<string, unknown>, parsedAnswer, filter.defaultWorkspace);
  return `{"result":${JSON.stringify(result)},"jsonrpc":"2.0","id":${id}}`;
}

const TEXT_HEAD = Buffer.from('{"result":{"content":[{"type":"text","text":"{\\"data\\":[');
const COMMA = Buffer.from(',');

/** The JSON-RPC response of a list page: what callTool's result would serialize to, byte for byte. */
function pageResult(page: NonNullable<RawAnswer['page']>, id: string): Buffer[] {
  const cursor = JSON.stringify(page.nextCursor);
  const { items } = page;
  // Sized up front: head, the items (with commas) as text, the middle, the items again, the tail.
  const parts = new Array<Buffer>(Math.max(4 * items.length + 1, 3));
  let k = 0;
  parts[k++] = TEXT_HEAD;
  for (let i = 0; i < items.length; i++) {
    if (i) parts[k++] = COMMA;
    parts[k++] = items[i].quotedBytes;
  }
  parts[k++] = Buffer.from(
    `],${JSON.stringify(`"next_cursor":${cursor}}`).slice(1, -1)}"}],"structuredContent":{"data":[`,
  );
  for (let i = 0; i < items.length; i++) {
    if (i) parts[k++] = COMMA;
    parts[k++] = items[i].bytes;
  }
  parts[k] = Buffer.from(`],"next_cursor":${cursor}}},"jsonrpc":"2.0","id":${id}}`);
  return parts;
}

/** The dispatch callTool uses (bodies parsed), from one whose answers are raw. */
export function parsedDispatch(dispatchRaw: (req: ToolRequest) => Promise<RawAnswer>): Dispatch {
  return async (req) => {
    const raw = await dispatchRaw(req);
    return { status: raw.status, body: parseAnswer(raw) };
  };
}

/** An answer's body parsed; a body that is not JSON becomes a problem naming what came back. */
function parseAnswer(raw: { status: number; text(): string }): unknown {
  const text = raw.text();
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return { title: 'Unreadable answer', status: raw.status, detail: text.slice(0, 200) };
  }
}

/** `{"data":D,"meta":M}` as the App writes it (meta last): D's text and M's next_cursor; null for any other shape. */
export function splitEnvelope(text: string): { data: string; nextCursor: string | null } | null {
  if (!text.startsWith('{"data":')) return null;
  const at = text.lastIndexOf(',"meta":');
  if (at < 0 || !text.endsWith('}')) return null;
  let meta: { next_cursor?: unknown };
  try {
    meta = JSON.parse(text.slice(at + 8, -1));
  } catch {
    return null;
  }
  if (!meta || typeof meta !== 'object') return null;
  return { data: text.slice(8, at), nextCursor: typeof meta.next_cursor === 'string' ? meta.next_cursor : null };
}
