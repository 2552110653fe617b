import type { Sql } from 'postgres';

/** A value of a row loaded with COPY. */
export type CopyValue = string | boolean | readonly string[] | Buffer | null;

/** Above this many rows, a write loads them with COPY rather than INSERT. */
export const COPY_ROWS = 1000;

/** COPY's text format: a field with its backslashes, tabs and line breaks escaped; \N for null. */
function field(v: CopyValue): string {
  if (v === null) return '\\N';
  if (typeof v === 'boolean') return v ? 't' : 'f';
  // bytea's hex form, its backslash escaped for COPY.
  if (Buffer.isBuffer(v)) return `\\\\x${v.toString('hex')}`;
  // An array literal quotes each element, escaping its quotes and backslashes (then COPY escapes again).
  const s = Array.isArray(v) ? `{${v.map((e) => `"${e.replace(/[\\"]/g, '\\$&')}"`).join(',')}}` : (v as string);
  return s.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/** A row as a line of COPY's text format. */
export const copyLine = <K extends string>(columns: readonly K[], r: Record<K, CopyValue>) =>
  columns.map((c) => field(r[c])).join('\t') + '\n';

/** Many rows with COPY: one stream, no per-row statement. */
export function copyRows<K extends string>(
  sql: Sql,
  table: string,
  columns: readonly K[],
  rows: Iterable<Record<K, CopyValue>>,
): Promise<void> {
  return copyLines(
    sql,
    table,
    columns,
    (function* () {
      for (const r of rows) yield copyLine(columns, r);
    })(),
  );
}

/** Lines made by copyLine into `table` with one COPY. */
export async function copyLines(
  sql: Sql,
  table: string,
  columns: readonly string[],
  lines: Iterable<string>,
): Promise<void> {
  const stream = await sql`copy ${sql(table)} (${sql(columns as string[])}) from stdin`.writable();
  const done = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
  });
  let chunk = '';
  for (const line of lines) {
    chunk += line;
    if (chunk.length > 1 << 20) {
      if (!stream.write(chunk)) await new Promise((r) => stream.once('drain', r));
      chunk = '';
    }
  }
  stream.end(chunk);
  await done;
}
