import type { ListFlags } from './command.js';
import { UsageError, apiErrorOf } from './errors.js';
import type { Factory } from './factory.js';
import type { ItemOf, ListOperationId } from '../contract/types.js';
import { JsonArrayStream, errStyle, printJson, printRows, type Column } from './output.js';

/** Checks `--limit`: an integer from 1 to 100. */
export function parseLimit(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 100)
    throw new UsageError(`\`--limit\` must be an integer from 1 to 100; received \`${raw}\`.`);
  return n;
}

/**
 * Runs a list operation with the shared flags: one page (`--limit`, `--cursor`) or every page
 * (`--all`), as a table, tab-separated rows or JSON. `--all --json` streams one JSON array.
 */
export async function runList<K extends ListOperationId, T = ItemOf<K>>(
  ...args: Parameters<typeof listPages<K, T>>
): Promise<number> {
  return listPages(...args).catch((err) => {
    throw badCursor(err, args[1].cursor) ?? err;
  });
}

/** The `run` of a `<things> ls` that lists the workspace's records with the shared flags only. */
export const workspaceList =
  <K extends ListOperationId>(operationId: K, columns: Column<ItemOf<K>>[], noun: string) =>
  async (flags: ListFlags, f: Factory): Promise<number> =>
    runList(f, flags, operationId, { params: { workspace: await f.workspace() } }, columns, noun);

/** The server's `invalid_cursor` is the user's `--cursor`: a usage error (exit 2) that names the flag. */
function badCursor(err: unknown, cursor: string | undefined): UsageError | undefined {
  const api = apiErrorOf(err);
  if (cursor === undefined || api?.problem.code !== 'invalid_cursor') return undefined;
  const shown = cursor.length > 40 ? `${cursor.slice(0, 40)}…` : cursor;
  return new UsageError(
    `\`--cursor ${shown}\` is not a cursor of this list: it was changed, cut short, or comes from another list.`,
    'Pass the value printed after "add --cursor" exactly, or leave `--cursor` out to start at the first page.',
  );
}

async function listPages<K extends ListOperationId, T = ItemOf<K>>(
  f: Factory,
  flags: ListFlags,
  operationId: K,
  input: { params?: Record<string, string | undefined>; query?: Record<string, string | number | undefined> },
  columns: Column<T>[],
  noun: string,
): Promise<number> {
  const limit = parseLimit(flags.limit);
  const client = await f.client();
  const query = { ...input.query, limit: limit ?? (flags.all ? 100 : undefined), cursor: flags.cursor };
  const { io } = f;
  if (flags.all) {
    // The array opens with the first page, so a request that fails at once leaves stdout empty.
    let json: JsonArrayStream | null = null;
    const buffered: T[] = [];
    let count = 0;
    for await (const page of client.pages<K, T>(operationId, { params: input.params, query })) {
      count += page.data.length;
      if (f.globals.json) await (json ??= new JsonArrayStream(io.stdout)).push(page.data);
      else if (io.isStdoutTTY) buffered.push(...page.data);
      else await printRows(io, page.data, columns);
    }
    if (f.globals.json) (json ?? new JsonArrayStream(io.stdout)).end();
    else if (io.isStdoutTTY) await printRows(io, buffered, columns);
    if (!count && !f.globals.json && io.isStderrTTY) io.stderr.write(`No ${noun}.\n`);
    return 0;
  }
  const res = await client.call<K, T[]>(operationId, { params: input.params, query });
  const { data, meta } = res.body;
  if (f.globals.json) printJson(io.stdout, data);
  else await printRows(io, data, columns);
  if (!data.length && !f.globals.json && io.isStderrTTY) io.stderr.write(`No ${noun}.\n`);
  if (meta.next_cursor) {
    const s = await errStyle(io);
    io.stderr.write(s.dim(`More ${noun}: add --cursor ${meta.next_cursor} (or --all for every page).\n`));
  }
  return 0;
}
