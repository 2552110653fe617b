import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { defineCommand } from '../src/cli/command.js';
import { UsageError, exitCodeOf, apiErrorOf } from '../src/cli/errors.js';
import type { Factory } from '../src/cli/factory.js';

interface ApiOptions {
  method?: string;
  field?: string[];
  header?: string[];
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
    if (!p.startsWith(`${baseUrl}/`)) throw new UsageError(`\`${raw}\` is not under the base URL ${baseUrl}.`, 'Give the path relative to the base URL, e.g. /workspaces/{workspace}/lists, and choose the server with --base-url.');
    p = p.slice(baseUrl.length);
  }
  if (!p.startsWith('/')) p = `/${p}`;
  p = p.replace(/^\/(?:api\/)?v1(?=\/|$|\?)/, '') || '/';
  if (p.includes('{workspace}')) p = p.split('{workspace}').join(encodeURIComponent(await f.workspace()));
  return p;
}

export default defineCommand<ApiOptions>({
  path: ['api'],
  summary: 'Send any request to the API and print the JSON response',
  description:
    'PATH is relative to the base URL (`{workspace}` is replaced by the target workspace). The method is\n' +
    '-X, else POST when -f fields or --input give a body, else GET. -f key=value fields are typed\n' +
    '(numbers, true, false, null, JSON objects/arrays; key=@file reads a file) and form the JSON body,\n' +
    'or the query string for GET; name[sub]=v nests and name[]=v appends. --input FILE (or - for stdin)\n' +
    'sends the file as the body; -f fields then go to the query string. --paginate follows\n' +
    'meta.next_cursor and prints every page\'s `data` as one JSON array. POSTs under /public get an\n' +
    'Idempotency-Key unless -H gives one. A non-2xx answer prints the problem object on stderr and\n' +
    'exits with the code of its status.',
  examples: [
    'wcm api /me',
    'wcm api /workspaces/{workspace}/lists --paginate',
    'wcm api -X POST /workspaces/{workspace}/lists -f title=FAQ -f template_slug=faq -f "items[][title]=Hours?"',
    'wcm api -X PATCH /workspaces/{workspace}/pages/PAGE --input page.json',
  ],
  args: [{ name: 'path', description: 'path relative to the base URL, e.g. /workspaces/{workspace}/lists', required: true }],
  options: [
    { flags: '-X, --method <method>', description: 'HTTP method (default GET, or POST with a body)' },
    { flags: '-f, --field <key=value>', description: 'a body field (query parameter for GET); repeatable', repeatable: true },
    { flags: '-H, --header <header>', description: '"Name: value" request header; repeatable', repeatable: true },
    { flags: '--input <file>', description: 'request body from a file, or - for standard input' },
    { flags: '--paginate', description: 'follow meta.next_cursor and print all `data` items as one JSON array' },
  ],
  async run(opts, f) {
    const { buildFields, parseHeaders } = await import('../src/cli/fields.js');
    const fields = opts.field ?? [];
    const method = (opts.method ?? (!opts.paginate && (fields.length || opts.input !== undefined) ? 'POST' : 'GET')).toUpperCase();
    if (!METHODS.includes(method)) throw new UsageError(`\`-X ${opts.method}\` is not an HTTP method.`, `Use one of ${METHODS.join(', ')}.`);
    if (opts.paginate && method !== 'GET') throw new UsageError('`--paginate` works with GET only.');
    const headers = parseHeaders(opts.header ?? []);
    const fieldObject = buildFields(fields, f.cwd);

    let rawBody: string | undefined;
    if (opts.input !== undefined) {
      if (opts.input === '-') {
        if (f.io.isStdinTTY) throw new UsageError('`--input -` reads the body from standard input, which is a terminal here.', 'Pipe it in, or give a file: `--input body.json`.');
        rawBody = '';
        for await (const chunk of f.io.stdin) rawBody += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
      } else {
        const file = path.resolve(f.cwd, opts.input);
        try {
          rawBody = await readFile(file, 'utf8');
        } catch (err) {
          throw new UsageError(`\`--input\`: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`);
        }
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
        const res = await client.request({ method, path: p, query, rawBody, headers, idempotencyKey, anonymous: isPublic });
        if (typeof res.body === 'string') out.write(res.body && !res.body.endsWith('\n') ? `${res.body}\n` : res.body);
        else out.write(JSON.stringify(res.body, null, 2) + '\n');
        return 0;
      }
      const { JsonArrayStream } = await import('../src/cli/output.js');
      let stream: InstanceType<typeof JsonArrayStream> | null = null;
      let cursor = query.cursor;
      for (;;) {
        const res = await client.request<{ data?: unknown; meta?: { next_cursor?: string | null } }>({ method, path: p, query: { ...query, cursor }, headers, anonymous: isPublic });
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
        if (!next || next === cursor) break;
        cursor = next;
      }
      stream.end();
      return 0;
    } catch (err) {
      const api = apiErrorOf(err);
      if (!api) throw err;
      // Raw command, raw error: the problem object as the server sent it.
      f.io.stderr.write(JSON.stringify({ status: api.status, ...api.problem }, null, 2) + '\n');
      return exitCodeOf(err);
    }
  },
});
