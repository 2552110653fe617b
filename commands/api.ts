import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { defineCommand } from '../src/cli/command.js';
import { UsageError, exitCodeOf, apiErrorOf } from '../src/cli/errors.js';
import type { Factory } from '../src/cli/factory.js';

interface ApiOptions {
  method?: string;
  rawField?: string[];
  field?: string[];
  header?: string[];
  include?: boolean;
  input?: string;
  paginate?: boolean;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/**
 * The request path relative to the base URL: a leading `/v1` or `/api/v1` (already in the base URL)
 * is dropped, and `{workspace}` becomes the target's workspace.
 */
async function requestPath(raw: string, f: Factory, baseUrl: string): Promise<string> {
  let p = raw;
  if (/^https?:\/\//i.test(p)) {
    if (!p.startsWith(`${baseUrl}/`))
      throw new UsageError(
        `\`${raw}\` is not under the base URL ${baseUrl}.`,
        'Give the path relative to the base URL, e.g. /workspaces/{workspace}/lists, and choose the server with --base-url.',
      );
    p = p.slice(baseUrl.length);
  }
  if (!p.startsWith('/')) p = `/${p}`;
  p = p.replace(/^\/(?:api\/)?v1(?=\/|$|\?)/, '') || '/';
  if (p.includes('{workspace}')) p = p.split('{workspace}').join(encodeURIComponent(await f.workspace()));
  return p;
}

/** `-i`: the status line and headers as `curl -i` and `gh api -i` print them, then a blank line. */
async function printHead(
  out: Factory['io']['stdout'],
  status: number,
  headers: Record<string, string>,
  tty = false,
): Promise<void> {
  const { STATUS_CODES } = await import('node:http');
  const name = (h: string) => h.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd() + '\n';
  for (const [k, v] of Object.entries(headers)) head += `${name(k)}: ${v}\n`;
  out.write(`${tty ? (await import('../src/cli/output.js')).terminalText(head) : head}\n`);
}

/** Standard input or a file, as the raw body of `--input`. */
async function readInput(f: Factory, input: string): Promise<string> {
  if (input === '-') {
    if (f.io.isStdinTTY)
      throw new UsageError(
        '`--input -` reads the body from standard input, which is a terminal here.',
        'Pipe it in, or give a file: `--input body.json`.',
      );
    let text = '';
    for await (const chunk of f.io.stdin)
      text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    return text;
  }
  const file = path.resolve(f.cwd, input);
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `\`--input\`: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`,
    );
  }
}

/** Refuses flag combinations that cannot both be honoured, each with the way out. */
function checkCombinations(opts: ApiOptions, method: string, f: Factory, stdinFields: boolean): void {
  if (!METHODS.includes(method))
    throw new UsageError(`\`-X ${opts.method}\` is not an HTTP method.`, `Use one of ${METHODS.join(', ')}.`);
  if (opts.paginate && method !== 'GET') throw new UsageError('`--paginate` works with GET only.');
  if (opts.include && opts.paginate)
    throw new UsageError(
      '`-i` and `--paginate` cannot be used together: the pages are printed as one JSON array.',
      'Drop `-i`, or fetch one page with `-i`.',
    );
  if (opts.include && f.globals.jq !== undefined)
    throw new UsageError(
      '`-i` and `--jq` cannot be used together: jq reads JSON, and the headers are not.',
      'Drop `-i`, or filter the body only.',
    );
  if (stdinFields && opts.input === '-')
    throw new UsageError('`-F …=@-` and `--input -` both read standard input.', 'Put one of them in a file.');
}

export default defineCommand<ApiOptions>({
  path: ['api'],
  summary: 'Send any request to the API and print the JSON response',
  description:
    'PATH is relative to the base URL (`{workspace}` is replaced by the target workspace). The method is\n' +
    '-X, else POST when fields or --input give a body, else GET. As in `gh api`: -f key=value is a string\n' +
    'as written; -F key=value is typed (true, false, null, numbers, a quoted "…" or [..]/{..} JSON; @file\n' +
    'reads a file, @- standard input; see docs/cli.md, "Typed values"). Fields form the JSON body, or the\n' +
    'query string for GET; name[sub]=v nests and name[]=v appends (-f fields first, then -F). --input\n' +
    'FILE (or - for stdin) sends the file as the body; fields then go to the query string. -i prints the\n' +
    'status line and headers before the body. --jq filters the response. --paginate follows\n' +
    "meta.next_cursor and prints every page's `data` as one JSON array. POSTs under /public get an\n" +
    'Idempotency-Key unless -H gives one. A non-2xx answer prints the problem object on stderr and\n' +
    'exits with the code of its status.',
  examples: [
    'wcm api /me',
    'wcm api /workspaces/{workspace}/lists --paginate',
    'wcm api -X POST /workspaces/{workspace}/lists -f title=2026 -f template_slug=faq -f "items[][title]=Hours?"',
    'wcm api -X PATCH /workspaces/{workspace}/pages/71184361-1989-42ed-9156-e4650146c0d5 -F robots_index=false -F bio=@bio.txt',
    'wcm api -i /me',
    'wcm api /workspaces/{workspace}/lists --jq ".data[].title"',
  ],
  args: [
    { name: 'path', description: 'path relative to the base URL, e.g. /workspaces/{workspace}/lists', required: true },
  ],
  options: [
    { flags: '-X, --method <method>', description: 'HTTP method (default GET, or POST with a body)' },
    {
      flags: '-f, --raw-field <key=value>',
      description: 'a string field of the body (query parameter for GET); repeatable',
      repeatable: true,
    },
    {
      flags: '-F, --field <key=value>',
      description: 'a typed field: true, false, null, numbers, JSON, @file, @- (stdin); repeatable',
      repeatable: true,
    },
    { flags: '-H, --header <header>', description: '"Name: value" request header; repeatable', repeatable: true },
    { flags: '-i, --include', description: 'print the status line and response headers before the body' },
    { flags: '--input <file>', description: 'request body from a file, or - for standard input' },
    { flags: '--paginate', description: 'follow meta.next_cursor and print all `data` items as one JSON array' },
  ],
  async run(opts, f) {
    const { buildFields, parseHeaders, readsStdin, readStdinText } = await import('../src/cli/fields.js');
    const fields = [
      ...(opts.rawField ?? []).map((assignment) => ({ assignment, typed: false })),
      ...(opts.field ?? []).map((assignment) => ({ assignment, typed: true })),
    ];
    const method = (
      opts.method ?? (!opts.paginate && (fields.length || opts.input !== undefined) ? 'POST' : 'GET')
    ).toUpperCase();
    const stdinFields = readsStdin(opts.field ?? []);
    checkCombinations(opts, method, f, stdinFields);
    const headers = parseHeaders(opts.header ?? []);
    const fieldObject = buildFields(fields, {
      cwd: f.cwd,
      stdin: stdinFields ? await readStdinText(f.io, '-F') : undefined,
    });
    let rawBody = opts.input === undefined ? undefined : await readInput(f, opts.input);
    // A JSON body (the default Content-Type) that does not parse is refused here, before any request:
    // the server could only answer 400, and a POST might have been half-understood by another one.
    if (rawBody !== undefined && /json/i.test(headers['content-type'] ?? 'application/json')) {
      try {
        JSON.parse(rawBody);
      } catch (err) {
        const from = opts.input === '-' ? 'standard input' : path.resolve(f.cwd, opts.input!);
        throw new UsageError(
          `\`--input\`: ${from} is not valid JSON (${(err as Error).message}); nothing was sent.`,
          'Fix the body, or send another kind of body as is with -H "Content-Type: …".',
        );
      }
    }
    const fieldsInQuery = method === 'GET' || method === 'HEAD' || rawBody !== undefined;
    const query: Record<string, string> = {};
    if (fieldsInQuery) {
      for (const [k, v] of Object.entries(fieldObject)) query[k] = typeof v === 'string' ? v : JSON.stringify(v);
    } else if (fields.length) {
      rawBody = JSON.stringify(fieldObject);
    }

    const client = await f.client({ requireToken: false });
    const p = await requestPath(opts.args[0], f, client.baseUrl);
    const isPublic = /^\/public\//.test(p);
    let idempotencyKey = headers['idempotency-key'];
    delete headers['idempotency-key'];
    if (!idempotencyKey && isPublic && method === 'POST') idempotencyKey = (await import('node:crypto')).randomUUID();

    const out = f.io.stdout;
    try {
      if (!opts.paginate) {
        const res = await client.request({
          method,
          path: p,
          query,
          rawBody,
          headers,
          idempotencyKey,
          anonymous: isPublic,
        });
        if (opts.include) await printHead(out, res.status, res.headers, f.io.isStdoutTTY);
        if (typeof res.body === 'string') {
          // A body that is not JSON goes out as it came when piped; on a terminal its control
          // characters (ESC, OSC…) are replaced, as for every server text shown there.
          const text = f.io.isStdoutTTY ? (await import('../src/cli/output.js')).terminalText(res.body) : res.body;
          out.write(text && !text.endsWith('\n') ? `${text}\n` : text);
        } else out.write(JSON.stringify(res.body, null, 2) + '\n');
        return 0;
      }
      const { JsonArrayStream } = await import('../src/cli/output.js');
      let stream: InstanceType<typeof JsonArrayStream> | null = null;
      let cursor = query.cursor;
      const { CursorTrail } = await import('../src/client/client.js');
      const trail = new CursorTrail(p);
      trail.add(cursor);
      for (;;) {
        const res = await client.request<{ data?: unknown; meta?: { next_cursor?: string | null } }>({
          method,
          path: p,
          query: { ...query, cursor },
          headers,
          anonymous: isPublic,
        });
        const body = res.body;
        if (!body || typeof body !== 'object' || !Array.isArray(body.data)) {
          if (stream) throw new UsageError(`\`--paginate\`: a later page of ${p} has no \`data\` array.`);
          // Not a list: nothing to merge, print it as is.
          out.write(JSON.stringify(body, null, 2) + '\n');
          return 0;
        }
        stream ??= new JsonArrayStream(out);
        await stream.push(body.data);
        const next = body.meta?.next_cursor ?? undefined;
        if (!next) break;
        // A cursor given before (A, B, A…) would page round in a circle for ever.
        trail.add(next);
        cursor = next;
      }
      stream.end();
      return 0;
    } catch (err) {
      const api = apiErrorOf(err);
      if (!api) throw err;
      if (opts.include) await printHead(out, api.status, api.info.headers ?? {}, f.io.isStdoutTTY);
      // Raw command, raw error: the problem object as the server sent it.
      f.io.stderr.write(JSON.stringify({ status: api.status, ...api.problem }, null, 2) + '\n');
      return exitCodeOf(err);
    }
  },
});
